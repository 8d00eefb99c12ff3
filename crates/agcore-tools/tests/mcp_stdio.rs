//! The MCP client against a real server over stdio: npm
//! `@modelcontextprotocol/server-everything`, started from
//! `AGCORE_TEST_MCP_STDIO_CMD` (see `scripts/services.sh`): listing, calls,
//! registry use, argument errors and timeouts. Server failures and process
//! clean-up are in `mcp_stdio_lifecycle.rs`.

#![cfg(feature = "mcp")]
#![cfg(test)]

use crate::mcp_support;

use std::time::Duration;

use agcore_tools::{Tool, ToolContext, ToolError, ToolRegistry};
use mcp_support::stdio::connect;
use mcp_support::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn lists_tools_and_calls_echo_over_stdio() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    assert!(client.process_id().is_some());
    check_listing(&client);

    let echo = find_tool(&client, &["echo"]);
    let out = echo
        .execute(json!({"message": "héllo, 你好"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: héllo, 你好"));

    let sum = find_tool(&client, &["get-sum", "add"]);
    let out = sum
        .execute(json!({"a": 2, "b": 40}), &ToolContext::new())
        .await
        .unwrap();
    let text = out.as_str().expect("text result");
    assert!(text.contains("42"), "{text}");

    // The same call by name through the client.
    let out = client
        .call_tool(
            "everything__echo",
            json!({"message": "again"}),
            &ToolContext::new(),
        )
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: again"));
    assert!(matches!(
        client
            .call_tool("everything__nope", json!({}), &ToolContext::new())
            .await,
        Err(ToolError::NotFound(_))
    ));

    client.shutdown().await.unwrap();
}

#[tokio::test]
async fn tools_register_and_run_in_a_tool_registry() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    let registry = ToolRegistry::new();
    for tool in client.tools() {
        registry.register(tool).unwrap();
    }
    assert_eq!(registry.len(), client.tools().len());
    let definitions = registry.definitions();
    let echo = definitions
        .iter()
        .find(|d| d.function.name == "everything__echo")
        .expect("echo definition");
    let description = echo.function.description.as_deref().unwrap_or("");
    assert!(description.to_lowercase().contains("echo"), "{description}");

    let ctx = ToolContext::new();
    let out = registry
        .invoke("everything__echo", json!({"message": "via registry"}), &ctx)
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: via registry"));
    // The server's schema is enforced before anything is sent.
    let err = registry
        .invoke("everything__echo", json!({"message": 7}), &ctx)
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::InvalidArguments { path, .. } if path == "/message"),
        "{err:?}"
    );
    client.shutdown().await.unwrap();
}

#[tokio::test]
async fn bad_arguments_name_the_problem() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    let echo = find_tool(&client, &["echo"]);
    let err = echo
        .execute(json!({"message": 42}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_echo_argument_error(&err);
    assert!(err.is_recoverable());

    let err = echo
        .execute(json!(["not", "an", "object"]), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments { .. }), "{err:?}");

    // The session survives both errors.
    let out = echo
        .execute(json!({"message": "still here"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: still here"));
    client.shutdown().await.unwrap();
}

#[tokio::test]
async fn stuck_calls_time_out_and_cancel() {
    let Some(client) = connect(Duration::from_secs(1)).await else {
        return;
    };
    let long = find_tool(
        &client,
        &["trigger-long-running-operation", "longRunningOperation"],
    );
    let args = json!({"duration": 60, "steps": 60});

    let ctx = ToolContext::new();
    let call = long.execute(args.clone(), &ctx);
    let err = tokio::time::timeout(NO_HANG, call)
        .await
        .expect("no hang")
        .unwrap_err();
    match err {
        ToolError::Timeout { tool, timeout } => {
            assert_eq!(tool, long.name());
            assert_eq!(timeout, Duration::from_secs(1));
        }
        other => panic!("expected a timeout, got {other:?}"),
    }

    let token = CancellationToken::new();
    let ctx = ToolContext::new().with_cancellation(token.clone());
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        token.cancel();
    });
    let err = long.execute(args, &ctx).await.unwrap_err();
    assert!(
        matches!(err, ToolError::Cancelled(ref tool) if tool == long.name()),
        "{err:?}"
    );
    canceller.await.unwrap();

    // Abandoned calls do not break the session.
    let echo = find_tool(&client, &["echo"]);
    let out = echo
        .execute(json!({"message": "after timeout"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: after timeout"));
    client.shutdown().await.unwrap();
}
