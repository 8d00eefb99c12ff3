//! Stored conversations of `agcore chat`: a second run with `--resume`
//! sends the first run's turns, `--list-sessions` lists them, Chinese
//! round-trips.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use cli_support::sse::{text_reply, when};
use serde_json::Value;
use wiremock::MockServer;

/// Runs `agcore chat` for alice against `server` with `stdin`, extraction
/// off; returns stdout.
async fn chat(home: &Home, server: &MockServer, extra: &[&str], stdin: &str) -> String {
    let mut cmd = home.agcore();
    cmd.args(["chat", "--user", "alice", "--model", "mock", "--db"])
        .arg(home.db())
        .args(extra)
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .write_stdin(stdin.to_owned());
    let output = tokio::task::spawn_blocking(move || cmd.assert().success().get_output().clone())
        .await
        .unwrap();
    String::from_utf8(output.stdout).unwrap()
}

fn list(home: &Home, user: &str) -> Vec<Value> {
    let out = home
        .agcore()
        .args(["chat", "--list-sessions", "--json", "--user", user, "--db"])
        .arg(home.db())
        .assert()
        .success();
    serde_json::from_slice(&out.get_output().stdout).unwrap()
}

/// The user and assistant texts of a recorded request, in order.
fn dialogue(body: &[u8]) -> Vec<String> {
    let body: Value = serde_json::from_slice(body).unwrap();
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user" || m["role"] == "assistant")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resumed_chat_sends_the_stored_turns() {
    let home = Home::new();
    std::fs::create_dir_all(home.path("config/agcore")).unwrap();
    std::fs::write(
        home.path("config/agcore/agcore.toml"),
        "[memory_agent]\nenabled = false\n",
    )
    .unwrap();
    let server = MockServer::start().await;
    when(
        &server,
        &["我的猫叫"],
        &["你还记得"],
        text_reply("好名字！"),
    )
    .await;
    when(&server, &["你还记得"], &[], text_reply("它叫小花。")).await;
    when(&server, &["second conversation"], &[], text_reply("ok")).await;
    assert!(list(&home, "alice").is_empty());

    chat(&home, &server, &[], "我的猫叫小花\n").await;
    let sessions = list(&home, "alice");
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let first_id = sessions[0]["session_id"].as_str().unwrap().to_owned();
    assert_eq!(sessions[0]["turns"], 1);
    assert_eq!(sessions[0]["first_user_line"], "我的猫叫小花");
    assert_eq!(sessions[0]["agent"], "assistant");
    let table = home
        .agcore()
        .args(["chat", "--list-sessions", "--user", "alice", "--db"])
        .arg(home.db())
        .assert()
        .success();
    let table = String::from_utf8(table.get_output().stdout.clone()).unwrap();
    assert!(table.starts_with("ID "), "{table}");
    assert!(
        table.contains("FIRST LINE") && table.contains("我的猫叫小花"),
        "{table}"
    );
    assert!(table.contains(&first_id), "{table}");

    // `--resume` without an id continues the most recent conversation.
    let out = chat(&home, &server, &["--resume"], "你还记得我的猫吗？\n").await;
    assert_eq!(out.trim(), "它叫小花。");
    let requests = server.received_requests().await.unwrap();
    assert_eq!(
        dialogue(&requests[1].body),
        ["我的猫叫小花", "好名字！", "你还记得我的猫吗？"],
        "the second run's prompt holds the first run's turns"
    );
    let sessions = list(&home, "alice");
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["turns"], 2);

    // A new conversation, then resuming the first by an id prefix.
    chat(&home, &server, &[], "a second conversation\n").await;
    let sessions = list(&home, "alice");
    assert_eq!(sessions.len(), 2);
    assert_ne!(sessions[0]["session_id"], first_id.as_str(), "newest first");
    assert_eq!(sessions[1]["session_id"], first_id.as_str());
    chat(
        &home,
        &server,
        &["--resume", &first_id[..8]],
        "你还记得吗？\n",
    )
    .await;
    let requests = server.received_requests().await.unwrap();
    let last = dialogue(&requests.last().unwrap().body);
    assert_eq!(last.len(), 5, "{last:?}");
    assert_eq!(last[0], "我的猫叫小花");
    assert!(
        !last.iter().any(|m| m.contains("second conversation")),
        "{last:?}"
    );

    // Another user sees none of alice's conversations, and cannot resume them.
    assert!(list(&home, "bob").is_empty());
    home.agcore()
        .args([
            "chat", "--user", "bob", "--model", "mock", "--resume", &first_id, "--db",
        ])
        .arg(home.db())
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .write_stdin("hi\n")
        .assert()
        .failure()
        .stderr(predicates::str::contains("no conversation"));
}

#[test]
fn without_conversations_there_is_nothing_to_list_or_resume() {
    let home = Home::new();
    home.agcore()
        .args(["chat", "--list-sessions", "--user", "alice", "--db"])
        .arg(home.db())
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "no stored conversations of assistant/alice",
        ));
    home.agcore()
        .args([
            "chat", "--resume", "--user", "alice", "--model", "m", "--db",
        ])
        .arg(home.db())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .write_stdin("hi\n")
        .assert()
        .failure()
        .stderr(predicates::str::contains("no stored conversation"));
}
