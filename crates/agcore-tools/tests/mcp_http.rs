//! The MCP client against a real server over streamable HTTP: npm
//! `@modelcontextprotocol/server-everything`, started by each test on a free
//! loopback port from `AGCORE_TEST_MCP_HTTP_CMD <PORT>` (see `scripts/services.sh`).

#![cfg(feature = "mcp")]
#![cfg(test)]

use crate::mcp_support;

use std::{
    net::{TcpListener, TcpStream},
    os::unix::process::CommandExt as _,
    process::{Child, Command, Stdio},
    time::Duration,
};

use agcore_tools::{
    Tool, ToolContext, ToolError,
    mcp::{McpClient, McpServerConfig, StreamableHttpTransport},
};
use mcp_support::*;
use serde_json::json;

const VAR: &str = "AGCORE_TEST_MCP_HTTP_CMD";

/// The HTTP server process (its own process group), killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    /// Starts the server on a free port and waits until it accepts connections.
    async fn start() -> Option<Self> {
        let command = server_command(VAR)?;
        let port = {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            listener.local_addr().unwrap().port()
        };
        let child = Command::new(command)
            .arg(port.to_string())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .expect("start the HTTP MCP server");
        let server = Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        };
        let ready = eventually(|| TcpStream::connect(("127.0.0.1", port)).is_ok()).await;
        assert!(ready, "the HTTP MCP server did not listen on port {port}");
        Some(server)
    }

    fn kill(&mut self) {
        kill_group(self.child.id());
        self.child.wait().unwrap();
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", self.child.id())])
                .status();
            let _ = self.child.wait();
        }
    }
}

async fn connect(server: &HttpServer, call_timeout: Duration) -> McpClient {
    let transport = StreamableHttpTransport::new(&server.url).with_header("X-Agcore-Test", "1");
    let config = McpServerConfig::new(SERVER, transport).with_call_timeout(call_timeout);
    McpClient::connect(config)
        .await
        .expect("connect over streamable HTTP")
}

#[tokio::test]
async fn lists_tools_calls_echo_and_rejects_bad_arguments_over_http() {
    let Some(server) = HttpServer::start().await else {
        return;
    };
    let client = connect(&server, Duration::from_secs(30)).await;
    assert_eq!(client.process_id(), None);
    check_listing(&client);

    let echo = find_tool(&client, &["echo"]);
    let out = echo
        .execute(json!({"message": "über HTTP 你好"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: über HTTP 你好"));

    let err = echo
        .execute(json!({"message": ["no"]}), &ToolContext::new())
        .await
        .unwrap_err();
    assert_echo_argument_error(&err);

    client.shutdown().await.unwrap();
    assert!(client.is_closed());
}

#[tokio::test]
async fn stuck_http_call_times_out() {
    let Some(server) = HttpServer::start().await else {
        return;
    };
    let client = connect(&server, Duration::from_secs(1)).await;
    let long = find_tool(
        &client,
        &["trigger-long-running-operation", "longRunningOperation"],
    );
    let ctx = ToolContext::new();
    let call = long.execute(json!({"duration": 60, "steps": 60}), &ctx);
    let err = tokio::time::timeout(NO_HANG, call)
        .await
        .expect("no hang")
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Timeout { tool, timeout } if tool == long.name() && *timeout == Duration::from_secs(1)),
        "{err:?}"
    );

    let echo = find_tool(&client, &["echo"]);
    let out = echo
        .execute(json!({"message": "after timeout"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: after timeout"));
    client.shutdown().await.unwrap();
}

#[tokio::test]
async fn killed_http_server_fails_calls_with_its_name() {
    let Some(mut server) = HttpServer::start().await else {
        return;
    };
    let client = connect(&server, Duration::from_secs(30)).await;
    let echo = find_tool(&client, &["echo"]);
    let out = echo
        .execute(json!({"message": "alive"}), &ToolContext::new())
        .await
        .unwrap();
    assert_eq!(out, json!("Echo: alive"));

    server.kill();

    let err = tokio::time::timeout(
        NO_HANG,
        echo.execute(json!({"message": "anyone?"}), &ToolContext::new()),
    )
    .await
    .expect("a call to a dead server must not hang")
    .unwrap_err();
    match &err {
        ToolError::Mcp { server, message } => {
            assert_eq!(server, SERVER);
            assert!(message.contains("gone"), "{message}");
        }
        other => panic!("expected ToolError::Mcp, got {other:?}"),
    }
    assert!(!err.is_recoverable());

    let shutdown = tokio::time::timeout(NO_HANG, client.shutdown()).await;
    assert!(
        shutdown.is_ok(),
        "shutdown after the server died must not hang"
    );
}

#[tokio::test]
async fn unreachable_http_server_is_a_clear_error() {
    let port = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let config =
        McpServerConfig::streamable_http("offline", format!("http://127.0.0.1:{port}/mcp"))
            .with_connect_timeout(Duration::from_secs(10));
    let err = tokio::time::timeout(NO_HANG, McpClient::connect(config))
        .await
        .expect("connect must give up")
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::Mcp { server, message } if server == "offline" && message.contains("handshake")),
        "{err:?}"
    );
}
