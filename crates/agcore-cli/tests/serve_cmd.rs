//! `agcore serve keys create`, `agcore serve` over a socket and `agcore mcp`
//! over stdio with agcore's own MCP client.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use agcore::tools::mcp::{McpClient, McpServerConfig, McpTransport, StdioTransport};
use agcore::tools::{ToolContext, output_text};
use serde_json::{Value, json};

use crate::cli_support::Home;

fn create_key(home: &Home, args: &[&str]) -> String {
    let out = home
        .agcore()
        .args(["serve", "keys", "create", "--keys"])
        .arg(home.path("keys.json"))
        .args(args)
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_owned()
}

#[test]
fn keys_are_printed_once_and_stored_as_hashes() {
    let home = Home::new();
    let key = create_key(&home, &["--agent", "helper", "--user", "alice"]);
    assert!(key.starts_with("agk_"), "{key}");
    let stored = std::fs::read_to_string(home.path("keys.json")).unwrap();
    assert!(!stored.contains(&key[4..]));
    assert!(stored.contains("\"alice\""));
    let admin = create_key(&home, &["--admin"]);
    assert_ne!(admin, key);
    home.agcore()
        .args(["serve", "keys", "create", "--agent", "helper"])
        .assert()
        .failure();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_answers_over_a_socket_and_stops_on_sigterm() {
    let home = Home::new();
    let key = create_key(&home, &["--agent", "helper", "--user", "alice"]);
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agcore"))
        .args(["serve", "--bind", &format!("127.0.0.1:{port}"), "--keys"])
        .arg(home.path("keys.json"))
        .arg("--db")
        .arg(home.db())
        .env("HOME", home.dir.path())
        .env("XDG_DATA_HOME", home.path("data"))
        .env("XDG_CONFIG_HOME", home.path("config"))
        .env_remove("AGCORE_CONFIG")
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert!(line.contains("agcore serve"), "{line}");
    let http = reqwest::Client::new();
    let base = format!("http://127.0.0.1:{port}");
    let saved: Value = http
        .post(format!("{base}/v1/memories"))
        .bearer_auth(&key)
        .json(&json!({"content": "Alice keeps bees"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(saved["created"], true);
    let unauthorized = http
        .get(format!("{base}/v1/memories"))
        .send()
        .await
        .unwrap();
    assert_eq!(unauthorized.status(), 401);
    let status = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    assert!(child.wait().unwrap().success());
    home.memory(&["list", "--agent", "helper"])
        .assert()
        .success()
        .stdout(predicates::str::contains("Alice keeps bees"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agcore_mcp_serves_the_memory_tools_over_stdio() {
    let home = Home::new();
    let transport = StdioTransport::new(env!("CARGO_BIN_EXE_agcore"))
        .with_args(["mcp", "--agent", "helper", "--user", "alice", "--db"])
        .with_args([home.db().display().to_string()])
        .with_env("HOME", home.dir.path().display().to_string())
        .with_env("XDG_CONFIG_HOME", home.path("config").display().to_string());
    let client = McpClient::connect(McpServerConfig::new(
        "agcore",
        McpTransport::Stdio(transport),
    ))
    .await
    .unwrap();
    assert_eq!(client.list_tools().await.unwrap().len(), 5);
    let ctx = ToolContext::new();
    let saved = client
        .call_tool("memory_save", json!({"action": "create", "name": "pet", "type": "user", "content": "Alice has a cat named 小白"}), &ctx)
        .await
        .unwrap();
    let saved: Value = serde_json::from_str(&output_text(&saved)).unwrap();
    assert_eq!(saved["status"], "created");
    let found = client
        .call_tool("memory_search", json!({"query": "小白"}), &ctx)
        .await
        .unwrap();
    let found: Value = serde_json::from_str(&output_text(&found)).unwrap();
    assert_eq!(found["memories"][0]["id"], saved["id"]);
    client.shutdown().await.unwrap();
    home.memory(&["list", "--agent", "helper"])
        .assert()
        .success()
        .stdout(predicates::str::contains("小白"));
}
