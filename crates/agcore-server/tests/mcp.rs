//! The MCP server over streamable HTTP on a real socket: agcore's own MCP
//! client and, when Node and the MCP SDK are installed (`.services`), the
//! official TypeScript SDK client.

use std::net::SocketAddr;
use std::sync::Arc;

use agcore::tools::mcp::{McpClient, McpServerConfig, McpTransport, StreamableHttpTransport};
use agcore::tools::{ToolContext, output_text};
use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::common::TestServer;

/// Serves `server` on a loopback port until the returned sender is dropped or fired.
pub async fn spawn(
    server: &TestServer,
) -> (SocketAddr, oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let state = Arc::clone(&server.state);
    let task = tokio::spawn(async move {
        agcore_server::serve(listener, state, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    (addr, stop, task)
}

async fn client(addr: SocketAddr, key: &str) -> McpClient {
    let transport = StreamableHttpTransport::new(format!("http://{addr}/mcp"))
        .with_header("Authorization", format!("Bearer {key}"));
    McpClient::connect(McpServerConfig::new(
        "agcore",
        McpTransport::StreamableHttp(transport),
    ))
    .await
    .unwrap()
}

async fn call(client: &McpClient, tool: &str, args: Value) -> Value {
    let out = client
        .call_tool(tool, args, &ToolContext::new())
        .await
        .unwrap();
    serde_json::from_str(&output_text(&out)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agcore_mcp_client_uses_the_memory_tools_in_its_keys_scope() {
    let server = TestServer::new().await;
    let key = server.key("helper", "alice");
    let other = server.key("helper", "bob");
    let (addr, stop, task) = spawn(&server).await;
    let alice = client(addr, &key).await;
    let mut names: Vec<String> = alice
        .list_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.remote_name().to_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "memory_delete",
            "memory_list",
            "memory_recall",
            "memory_save",
            "memory_search"
        ]
    );

    let saved = call(
        &alice,
        "memory_save",
        json!({"action": "create", "name": "tea", "type": "user",
        "content": "Alice takes jasmine tea 茉莉花茶 without sugar"}),
    )
    .await;
    assert_eq!(saved["status"], "created");
    let id = saved["id"].as_i64().unwrap();
    let recalled = call(&alice, "memory_recall", json!({"query": "jasmine tea"})).await;
    assert_eq!(recalled["memories"][0]["id"].as_i64(), Some(id));
    let searched = call(&alice, "memory_search", json!({"query": "茉莉花茶"})).await;
    assert_eq!(searched["memories"][0]["id"].as_i64(), Some(id));
    assert!(
        searched["memories"][0]["why"]["lexical"].is_object(),
        "{searched}"
    );
    let listed = call(&alice, "memory_list", json!({})).await;
    assert_eq!(listed["memories"].as_array().unwrap().len(), 1);

    // The provenance of the agent's tool is kept.
    let admin = server.admin();
    let (_, entry) = server
        .call(
            "GET",
            &format!("/v1/scopes/helper/alice/memories/{id}"),
            Some(&admin),
            None,
        )
        .await;
    assert_eq!(entry["metadata"]["source"], "model (memory_save tool)");

    let bob = client(addr, &other).await;
    let nothing = call(&bob, "memory_recall", json!({"query": "jasmine tea"})).await;
    assert_eq!(nothing["memories"], json!([]));
    let refused = bob
        .call_tool("memory_delete", json!({"id": id}), &ToolContext::new())
        .await;
    assert!(refused.is_err());

    let deleted = call(&alice, "memory_delete", json!({"id": id})).await;
    assert_eq!(deleted["status"], "deleted");
    alice.shutdown().await.unwrap();
    bob.shutdown().await.unwrap();
    stop.send(()).unwrap();
    task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_official_typescript_sdk_client_talks_to_the_server() {
    let Some(sdk) = crate::common::node_sdk() else {
        assert!(
            std::env::var("AGCORE_REQUIRE_SERVICES").is_err() && std::env::var("CI").is_err(),
            "the MCP SDK client is not installed under .services (scripts/services.sh install)"
        );
        eprintln!("skipped: @modelcontextprotocol/sdk not installed under .services");
        return;
    };
    let server = TestServer::new().await;
    let key = server.key("helper", "carol");
    let (addr, stop, task) = spawn(&server).await;
    let script = format!(
        r#"
const {{ Client }} = await import("{sdk}/dist/esm/client/index.js");
const {{ StreamableHTTPClientTransport }} = await import("{sdk}/dist/esm/client/streamableHttp.js");
const transport = new StreamableHTTPClientTransport(new URL("http://{addr}/mcp"),
  {{ requestInit: {{ headers: {{ Authorization: "Bearer {key}" }} }} }});
const client = new Client({{ name: "sdk-test", version: "1.0.0" }});
await client.connect(transport);
const tools = (await client.listTools()).tools.map(t => t.name).sort();
const saved = await client.callTool({{ name: "memory_save", arguments: {{ action: "create", name: "bike", type: "user", content: "Carol rides a blue bike" }} }});
const recalled = await client.callTool({{ name: "memory_recall", arguments: {{ query: "blue bike" }} }});
console.log(JSON.stringify({{ tools, saved: saved.content[0].text, recalled: recalled.content[0].text }}));
await client.close();
"#
    );
    let output = tokio::process::Command::new("node")
        .args(["--input-type=module", "-e", &script])
        .output()
        .await
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        answer["tools"],
        json!([
            "memory_delete",
            "memory_list",
            "memory_recall",
            "memory_save",
            "memory_search"
        ])
    );
    let recalled: Value = serde_json::from_str(answer["recalled"].as_str().unwrap()).unwrap();
    assert_eq!(
        recalled["memories"][0]["content"],
        "Carol rides a blue bike"
    );
    stop.send(()).unwrap();
    task.await.unwrap();
}
