//! Integration tests: the `ToolExecutor` implementation used by the LLM tool loop.
#![cfg(test)]

use crate::tool_support;

use std::sync::Arc;
use std::time::Duration;

use agcore_tools::{
    FnTool, PermissionChecker, PermissionConfig, ToolContext, ToolError, ToolRegistry, TypedTool,
};
use agcore_types::{Role, ToolCall, ToolExecutor};
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn registry() -> Arc<ToolRegistry> {
    let checker = PermissionChecker::new(PermissionConfig::deny_list(["forbidden"])).unwrap();
    let registry = ToolRegistry::new().with_permissions(checker);
    registry
        .register(tool_support::Weather.into_tool())
        .unwrap();
    registry.register(tool_support::echo("echo")).unwrap();
    registry.register(tool_support::echo("forbidden")).unwrap();
    Arc::new(registry)
}

#[tokio::test]
async fn successful_call_becomes_a_tool_message() {
    let registry = registry();
    let executor: &dyn ToolExecutor = registry.as_ref();
    assert_eq!(executor.definitions().len(), 3);

    let call = ToolCall::new("call_1", "get_weather", r#"{"city":"北京"}"#);
    let msg = executor.execute(&call).await.unwrap();
    assert_eq!(msg.role, Role::Tool);
    assert_eq!(msg.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(msg.text(), r#"{"city":"北京","temp_c":22}"#);

    // A string result is passed through unquoted.
    let call = ToolCall::new("call_2", "echo", r#"{"value":"plain text"}"#);
    assert_eq!(executor.execute(&call).await.unwrap().text(), "plain text");
}

#[tokio::test]
async fn bad_json_and_bad_arguments_are_recoverable() {
    let registry = registry();
    let err = ToolExecutor::execute(
        registry.as_ref(),
        &ToolCall::new("c", "get_weather", "{city: 北京"),
    )
    .await
    .unwrap_err();
    assert!(err.is_recoverable());
    assert_eq!(err.tool, "get_weather");
    assert!(err.message.contains("JSON"), "{}", err.message);

    let err = ToolExecutor::execute(
        registry.as_ref(),
        &ToolCall::new("c", "get_weather", r#"{"city":1}"#),
    )
    .await
    .unwrap_err();
    assert!(err.is_recoverable());
    assert!(err.message.contains("/city"), "{}", err.message);
    assert_eq!(err.to_tool_message("c").tool_call_id.as_deref(), Some("c"));
}

#[tokio::test]
async fn unknown_tool_is_recoverable_and_lists_the_tools() {
    let registry = registry();
    let err = ToolExecutor::execute(registry.as_ref(), &ToolCall::new("c", "get_wether", "{}"))
        .await
        .unwrap_err();
    assert!(err.is_recoverable());
    assert!(err.message.contains("get_weather, echo"), "{}", err.message);
}

#[tokio::test]
async fn permission_denied_is_fatal() {
    let registry = registry();
    let err = ToolExecutor::execute(
        registry.as_ref(),
        &ToolCall::new("c", "forbidden", r#"{"value":1}"#),
    )
    .await
    .unwrap_err();
    assert!(!err.is_recoverable());
    assert!(err.message.contains("permission denied"), "{}", err.message);
}

#[tokio::test]
async fn bound_executor_passes_context_and_cancellation() {
    let registry = registry();
    registry
        .register(Arc::new(FnTool::new(
            "who",
            "Caller id.",
            |_a: tool_support::EchoArgs, ctx: ToolContext| async move {
                tokio::select! {
                    () = ctx.cancellation.cancelled() => Ok::<_, ToolError>(json!("cancelled inside")),
                    () = tokio::time::sleep(Duration::from_millis(1)) => Ok(json!(ctx.user_id)),
                }
            },
        )))
        .unwrap();
    let token = CancellationToken::new();
    let executor = registry.executor(
        ToolContext::new()
            .with_user_id("bob")
            .with_cancellation(token.clone()),
    );
    let msg = executor
        .execute(&ToolCall::new("c1", "who", r#"{"value":0}"#))
        .await
        .unwrap();
    assert_eq!(msg.text(), "bob");

    token.cancel();
    let err = executor
        .execute(&ToolCall::new("c2", "who", r#"{"value":0}"#))
        .await
        .unwrap_err();
    assert!(!err.is_recoverable());
    assert!(err.message.contains("cancelled"), "{}", err.message);
}
