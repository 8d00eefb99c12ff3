//! The MCP client against a real server over stdio: npm
//! `@modelcontextprotocol/server-everything`, started from
//! `AGCORE_TEST_MCP_STDIO_CMD` (see `scripts/services.sh`).

#![cfg(feature = "mcp")]
#![cfg(test)]

mod mcp_support;

use std::time::Duration;

use agcore_tools::{
    Tool, ToolContext, ToolError, ToolRegistry,
    mcp::{McpClient, McpServerConfig},
};
use mcp_support::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const VAR: &str = "AGCORE_TEST_MCP_STDIO_CMD";

async fn connect(call_timeout: Duration) -> Option<McpClient> {
    let command = server_command(VAR)?;
    let config = McpServerConfig::stdio(SERVER, command, Vec::<String>::new())
        .with_call_timeout(call_timeout);
    Some(
        McpClient::connect(config)
            .await
            .expect("connect over stdio"),
    )
}

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

#[tokio::test]
async fn killed_server_fails_calls_with_its_name() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    let pid = client.process_id().expect("child pid");
    let echo = find_tool(&client, &["echo"]);
    let long = find_tool(
        &client,
        &["trigger-long-running-operation", "longRunningOperation"],
    );

    // One call in flight when the server dies, one after.
    let in_flight = {
        let long = long.clone();
        tokio::spawn(async move {
            long.execute(json!({"duration": 60, "steps": 60}), &ToolContext::new())
                .await
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    kill_group(pid);

    let err = tokio::time::timeout(NO_HANG, in_flight)
        .await
        .expect("the in-flight call must not hang")
        .unwrap()
        .unwrap_err();
    assert_server_gone(&err);

    let err = tokio::time::timeout(
        NO_HANG,
        echo.execute(json!({"message": "anyone?"}), &ToolContext::new()),
    )
    .await
    .expect("a call to a dead server must not hang")
    .unwrap_err();
    assert_server_gone(&err);
    assert!(client.is_closed());

    client.shutdown().await.unwrap();
    assert!(
        eventually(|| !process_exists(pid)).await,
        "child {pid} not reaped"
    );
}

fn assert_server_gone(err: &ToolError) {
    match err {
        ToolError::Mcp { server, message } => {
            assert_eq!(server, SERVER);
            assert!(message.contains("gone"), "{message}");
        }
        other => panic!("expected ToolError::Mcp, got {other:?}"),
    }
    assert!(!err.is_recoverable());
}

#[tokio::test]
async fn shutdown_leaves_no_child_process() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    let pid = client.process_id().expect("child pid");
    assert!(process_alive(pid));
    let echo = find_tool(&client, &["echo"]);

    client.shutdown().await.unwrap();
    assert!(
        !process_exists(pid),
        "child {pid} still exists after shutdown"
    );
    assert!(client.is_closed());
    client.shutdown().await.unwrap();

    let err = echo
        .execute(json!({"message": "late"}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Mcp { server, message } if server == SERVER && message.contains("shut down")),
        "{err:?}"
    );
}

#[tokio::test]
async fn dropped_client_kills_its_child() {
    let Some(client) = connect(Duration::from_secs(30)).await else {
        return;
    };
    let pid = client.process_id().expect("child pid");
    drop(client);
    assert!(
        eventually(|| !process_exists(pid)).await,
        "child {pid} survived the client or was left a zombie"
    );
}

#[tokio::test]
async fn missing_command_is_a_clear_error() {
    let config = McpServerConfig::stdio("ghost", "/nonexistent/mcp-server", ["--stdio"]);
    let err = McpClient::connect(config).await.unwrap_err();
    match err {
        ToolError::Mcp { server, message } => {
            assert_eq!(server, "ghost");
            assert!(
                message.contains("cannot start `/nonexistent/mcp-server`"),
                "{message}"
            );
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn crashing_server_reports_its_stderr() {
    let config = McpServerConfig::stdio(
        "crashy",
        "sh",
        [
            "-c",
            "printf 'bad byte \\377\\n' >&2; echo 'config file missing: 配置' >&2; exit 3",
        ],
    )
    .with_connect_timeout(Duration::from_secs(10));
    let err = McpClient::connect(config).await.unwrap_err();
    match err {
        ToolError::Mcp { server, message } => {
            assert_eq!(server, "crashy");
            assert!(message.contains("handshake"), "{message}");
            assert!(message.contains("bad byte \u{fffd}"), "{message}");
            assert!(message.contains("config file missing: 配置"), "{message}");
        }
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn silent_server_hits_the_connect_timeout() {
    let config = McpServerConfig::stdio("mute", "sleep", ["30"])
        .with_connect_timeout(Duration::from_millis(300));
    let err = tokio::time::timeout(NO_HANG, McpClient::connect(config))
        .await
        .expect("connect must give up")
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Mcp { server, message } if server == "mute" && message.contains("no MCP handshake within")),
        "{err:?}"
    );
}
