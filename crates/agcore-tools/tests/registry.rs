//! Integration tests: registration, definitions, validation, single calls.
#![cfg(test)]

use crate::tool_support;

use std::sync::Arc;

use agcore_tools::{Tool, ToolContext, ToolError, ToolOutput, ToolRegistry, TypedTool};
use async_trait::async_trait;
use serde_json::{Value, json};
use tool_support::{Weather, echo, failing};

#[tokio::test]
async fn typed_tool_round_trip() {
    let registry = ToolRegistry::new();
    registry.register(Weather.into_tool()).unwrap();
    let out = registry
        .invoke("get_weather", json!({"city": "北京"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!({"city": "北京", "temp_c": 22}));
}

#[test]
fn duplicate_registration_is_an_error_and_keeps_the_first() {
    let registry = ToolRegistry::new();
    registry.register(echo("dup")).unwrap();
    let err = registry.register(Weather.into_tool()).map(|_| ());
    assert!(err.is_ok());
    let err = registry.register(echo("dup")).unwrap_err();
    assert!(matches!(&err, ToolError::AlreadyRegistered(n) if n == "dup"));
    assert!(!err.is_recoverable());
    assert_eq!(registry.names(), ["dup", "get_weather"]);
}

#[test]
fn invalid_names_and_schemas_are_rejected() {
    let registry = ToolRegistry::new();
    assert!(matches!(
        registry.register(echo("bad name")),
        Err(ToolError::InvalidName(n)) if n == "bad name"
    ));

    struct BadSchema;
    #[async_trait]
    impl Tool for BadSchema {
        fn name(&self) -> &str {
            "bad_schema"
        }
        fn description(&self) -> &str {
            "x"
        }
        fn parameters(&self) -> Value {
            json!({"type": "object", "properties": {"a": {"type": "no-such-type"}}})
        }
        async fn execute(&self, _: Value, _: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(Value::Null)
        }
    }
    assert!(matches!(
        registry.register(Arc::new(BadSchema)),
        Err(ToolError::InvalidSchema { tool, .. }) if tool == "bad_schema"
    ));
    assert!(registry.is_empty());
}

#[test]
fn definitions_follow_registration_order_with_generated_schemas() {
    let registry = ToolRegistry::new();
    registry.register(Weather.into_tool()).unwrap();
    registry.register(echo("echo")).unwrap();
    let defs = registry.definitions();
    let names: Vec<_> = defs.iter().map(|d| d.name().to_owned()).collect();
    assert_eq!(names, ["get_weather", "echo"]);
    let params = defs[0].function.parameters.as_ref().unwrap();
    assert_eq!(params["type"], "object");
    assert_eq!(params["required"], json!(["city"]));
    assert_eq!(params["properties"]["city"]["description"], "City name.");
    let wire = serde_json::to_value(&defs[0]).unwrap();
    assert_eq!(wire["type"], "function");
    assert_eq!(
        wire["function"]["description"],
        "Current weather of a city."
    );

    assert!(registry.unregister("get_weather").is_some());
    assert_eq!(registry.names(), ["echo"]);
    assert!(registry.get("get_weather").is_none());
}

#[tokio::test]
async fn validation_errors_name_the_json_path() {
    let registry = ToolRegistry::new();
    registry.register(Weather.into_tool()).unwrap();
    let ctx = ToolContext::new();

    let cases = [
        (json!({}), "/city"),
        (json!({"city": 42}), "/city"),
        (json!({"city": "x", "days": -1}), "/days"),
        (json!({"city": "x", "days": "two"}), "/days"),
        (json!("not an object"), ""),
    ];
    for (args, want) in cases {
        let err = registry
            .invoke("get_weather", args.clone(), &ctx)
            .await
            .unwrap_err();
        match &err {
            ToolError::InvalidArguments {
                tool,
                path,
                message,
            } => {
                assert_eq!(tool, "get_weather");
                assert_eq!(path, want, "args {args}: {message}");
                assert!(!message.is_empty());
            }
            other => panic!("args {args}: expected InvalidArguments, got {other:?}"),
        }
        assert!(err.is_recoverable());
        assert!(err.to_string().contains(&format!("`{want}`")));
    }
}

#[tokio::test]
async fn nested_array_paths() {
    let registry = ToolRegistry::new();
    registry.register(echo("echo")).unwrap();
    // `value` accepts anything: only the missing property fails.
    let err = registry
        .invoke("echo", json!({"other": [1]}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments { path, .. } if path == "/value"));
}

#[tokio::test]
async fn unknown_tool_and_tool_failures() {
    let registry = ToolRegistry::new();
    registry.register(failing()).unwrap();
    let ctx = ToolContext::new();
    assert!(matches!(
        registry.invoke("nope", json!({}), &ctx).await,
        Err(ToolError::NotFound(n)) if n == "nope"
    ));
    let err = registry
        .invoke("always_fails", json!({"value": 1}), &ctx)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::ExecutionFailed { message, .. } if message == "disk on fire")
    );
    assert!(err.is_recoverable());
}

#[tokio::test]
async fn context_reaches_the_tool() {
    let registry = ToolRegistry::new();
    registry
        .register(Arc::new(agcore_tools::FnTool::new(
            "whoami",
            "Returns the caller.",
            |_a: tool_support::EchoArgs, ctx: ToolContext| async move {
                Ok::<_, ToolError>(json!({"user": ctx.user_id, "session": ctx.session_id}))
            },
        )))
        .unwrap();
    let ctx = ToolContext::new()
        .with_user_id("u-1")
        .with_session_id("s-9");
    let out = registry
        .invoke("whoami", json!({"value": 0}), &ctx)
        .await
        .unwrap();
    assert_eq!(out, json!({"user": "u-1", "session": "s-9"}));
}

fn assert_send_sync<T: Send + Sync>(_: &T) {}
fn assert_send<T: Send>(_: &T) {}

#[tokio::test]
async fn registry_is_shareable_and_calls_can_be_spawned() {
    let registry = Arc::new(ToolRegistry::new());
    registry.register(Weather.into_tool()).unwrap();
    assert_send_sync(&registry);
    let ctx = ToolContext::new();
    let all = registry.invoke_all([("get_weather", json!({"city": "x"}))], &ctx);
    assert_send(&all);
    drop(all);
    let handle = tokio::spawn({
        let registry = registry.clone();
        async move {
            registry
                .invoke("get_weather", json!({"city": "上海"}), &ToolContext::new())
                .await
        }
    });
    assert_eq!(handle.await.unwrap().unwrap()["city"], "上海");
}
