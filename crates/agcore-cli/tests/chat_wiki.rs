//! `agcore chat --wiki DB`: the model calls `retrieve`, the wiki page's
//! text comes back to it as the tool result.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use cli_support::sse::{text_reply, tool_call_reply, when};
use serde_json::{Value, json};
use wiremock::MockServer;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_with_a_wiki_retrieves_its_pages() {
    let home = Home::new();
    let notes = home.path("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(
        notes.join("kettle.md"),
        "# Kettle\n\n## Descaling\nDescale the kettle monthly with citric acid.\n\n\
         ## 泡茶\n龙井用八十度的水冲泡，不要用沸水。\n",
    )
    .unwrap();
    let wiki = home.path("wiki.db");
    home.agcore()
        .args(["wiki", "ingest"])
        .arg(&notes)
        .arg("--db")
        .arg(&wiki)
        .assert()
        .success();

    let server = MockServer::start().await;
    // First round: the model searches the wiki; second: it answers from the result.
    when(
        &server,
        &[],
        &["\"role\":\"tool\""],
        tool_call_reply("retrieve", &json!({"query": "龙井 水温"})),
    )
    .await;
    when(
        &server,
        &["\"role\":\"tool\"", "八十度"],
        &[],
        text_reply("用八十度的水。"),
    )
    .await;

    let mut cmd = home.agcore();
    cmd.args(["chat", "--user", "alice", "--model", "mock", "--db"])
        .arg(home.db())
        .arg("--wiki")
        .arg(&wiki)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .write_stdin("泡龙井用多少度的水？\n");
    let output = tokio::task::spawn_blocking(move || cmd.assert().success().get_output().clone())
        .await
        .unwrap();
    let stdout = String::from_utf8(output.stdout).unwrap();
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("[retrieve done]"), "{stderr}");
    assert_eq!(stdout.trim(), "用八十度的水。", "{stderr}");

    let requests = server.received_requests().await.unwrap();
    let first: Value = serde_json::from_slice(&requests[0].body).unwrap();
    let tools: Vec<&str> = first["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    assert!(tools.contains(&"retrieve"), "{tools:?}");
    let second: Value = serde_json::from_slice(&requests[1].body).unwrap();
    let result = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap();
    let hits: Value = serde_json::from_str(result).unwrap();
    assert_eq!(hits[0]["kind"], "page", "{hits}");
    assert!(
        hits[0]["text"]
            .as_str()
            .unwrap()
            .contains("龙井用八十度的水冲泡"),
        "{hits}"
    );
}

#[test]
fn chat_help_names_the_wiki_flag() {
    let home = Home::new();
    home.agcore()
        .args(["chat", "--help"])
        .assert()
        .success()
        .stdout(predicates::str::contains("--wiki <DB>"));
}
