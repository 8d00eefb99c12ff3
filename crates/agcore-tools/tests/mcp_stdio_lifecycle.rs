//! The MCP client's stdio server lifecycle: a killed server, shutdown and
//! drop leaving no child process, and start-up failures (missing command,
//! crashing server, no handshake). Server from `AGCORE_TEST_MCP_STDIO_CMD`
//! (see `scripts/services.sh`).

#![cfg(feature = "mcp")]
#![cfg(test)]

use crate::mcp_support;

use std::time::Duration;

use agcore_tools::{
    Tool, ToolContext, ToolError,
    mcp::{McpClient, McpServerConfig},
};
use mcp_support::stdio::connect;
use mcp_support::*;
use serde_json::json;

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
