//! Memory attachments from the command line: `agcore config schema`,
//! `agcore memory index-files`, and `agcore chat --config x.yaml --agent NAME`
//! (a wiremock server checking the injected block; the real local server
//! when `AGCORE_TEST_OPENAI_BASE_URL` is set).
#![cfg(test)]

use crate::cli_support;

use agcore_memory_testkit::service_url;
use cli_support::Home;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

#[test]
fn config_schema_is_json_naming_memory_and_agents() {
    let out = Home::new()
        .agcore()
        .args(["config", "schema"])
        .assert()
        .success()
        .get_output()
        .clone();
    let schema: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(schema["properties"]["memory"].is_object(), "{schema}");
    assert!(schema["properties"]["agents"].is_object(), "{schema}");
    let types: Vec<&str> = schema["$defs"]["StoreDeclaration"]["oneOf"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["properties"]["type"]["const"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["blackboard", "file", "simple"]);
}

fn index_files(home: &Home, config: &str) -> Value {
    let out = home
        .agcore()
        .args(["memory", "index-files", config, "--json"])
        .assert()
        .success()
        .get_output()
        .clone();
    let rows: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
    rows[0].clone()
}

#[test]
fn index_files_reports_counts_then_all_unchanged() {
    let home = Home::new();
    let docs = home.path("docs");
    std::fs::create_dir_all(docs.join("nested")).unwrap();
    std::fs::write(
        docs.join("tea.md"),
        "# Tea\nGreen tea at 80 degrees.\n\n## Steeping\nTwo minutes, 两分钟.\n",
    )
    .unwrap();
    std::fs::write(docs.join("nested/bikes.md"), "# Bikes\nSeven bar.\n").unwrap();
    std::fs::write(docs.join("notes.txt"), "not a Markdown file").unwrap();
    std::fs::write(
        home.path("agents.yaml"),
        "memory:\n  stores:\n    - name: docs\n      type: file\n      config:\n        index_path: index/docs.json\n\
         \x20       file_sources: [{ path: docs, file_types: [\".md\"] }]\n\
         \x20       chunking: { size: 30, overlap: 5 }\n",
    )
    .unwrap();
    let first = index_files(&home, "agents.yaml");
    assert_eq!(first["store"], "docs");
    assert_eq!(first["files_scanned"], 2);
    assert_eq!(first["files_new"], 2);
    assert_eq!(first["files_changed"], 0);
    assert_eq!(first["files_unchanged"], 0);
    let chunks = first["chunks_total"].as_u64().unwrap();
    assert!(chunks >= 3, "{first}");
    assert_eq!(first["chunks_indexed"].as_u64(), Some(chunks));
    assert!(home.path("index/docs.json").exists());

    let second = index_files(&home, "agents.yaml");
    assert_eq!(second["files_unchanged"], 2, "{second}");
    assert_eq!(second["files_new"], 0);
    assert_eq!(second["files_changed"], 0);
    assert_eq!(second["files_removed"], 0);
    assert_eq!(second["chunks_indexed"], 0);
    assert_eq!(second["chunks_total"].as_u64(), Some(chunks));

    // One file edited, one deleted: only they count.
    std::fs::write(docs.join("tea.md"), "# Tea\nBlack tea at 95 degrees.\n").unwrap();
    std::fs::remove_file(docs.join("nested/bikes.md")).unwrap();
    let third = home
        .agcore()
        .args(["memory", "index-files", "agents.yaml"])
        .assert()
        .success()
        .get_output()
        .clone();
    let line = String::from_utf8(third.stdout).unwrap();
    assert!(
        line.starts_with("docs: 1 files: 0 new, 1 changed, 1 removed, 0 unchanged; chunks: "),
        "{line}"
    );
}

#[test]
fn index_files_without_a_file_store_is_not_found() {
    let home = Home::new();
    std::fs::write(
        home.path("agents.toml"),
        "[[memory.stores]]\nname = \"board\"\ntype = \"blackboard\"\n",
    )
    .unwrap();
    home.agcore()
        .args(["memory", "index-files", "agents.toml"])
        .assert()
        .code(4)
        .stderr(predicates::str::contains("declares no `file` memory store"));
}

fn sse_reply(text: &str) -> String {
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({
            "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "mock",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]
        })
    };
    format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": text}), None),
        chunk(json!({}), Some("stop"))
    )
}

/// A configuration with a blackboard store attached to `helper` (read
/// before each turn, every turn written) and no fact extraction.
fn board_config(home: &Home, llm: &str) -> std::path::PathBuf {
    let config = home.path("agents.yaml");
    std::fs::write(
        &config,
        format!(
            "{llm}memory_agent:\n  enabled: false\n\
             memory:\n  stores:\n    - name: board\n      type: blackboard\n      config: {{ memory_path: board.json, max_items: 10 }}\n\
             agents:\n  - name: helper\n    memories:\n      - {{ name: board, retrieve_stage: [pre], write: true }}\n"
        ),
    )
    .unwrap();
    config
}

fn board_text(home: &Home) -> String {
    std::fs::read_to_string(home.path("board.json")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chat_with_a_blackboard_attachment_writes_and_injects() {
    let server = MockServer::start().await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(sse_reply("The kettle is on."), "text/event-stream"),
        )
        .mount(&server)
        .await;
    let home = Home::new();
    let config = board_config(&home, "llm:\n  model: mock\n");
    let mut cmd = home.agcore();
    cmd.args(["chat", "--agent", "helper", "--user", "alice", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(home.db())
        .env("OPENAI_BASE_URL", format!("{}/v1", server.uri()))
        .write_stdin("Put the kettle on, please\nAnd then?\n");
    let out = tokio::task::spawn_blocking(move || cmd.assert().success().get_output().clone())
        .await
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(!stderr.contains("error"), "{stderr}");
    // Both turns are on the board.
    let board = board_text(&home);
    assert!(board.contains("Put the kettle on, please"), "{board}");
    assert!(board.contains("And then?"), "{board}");
    // The second turn's system prompt holds the first turn under the header.
    let requests = server.received_requests().await.unwrap();
    assert_eq!(requests.len(), 2);
    let system = |i: usize| {
        let body: Value = serde_json::from_slice(&requests[i].body).unwrap();
        body["messages"][0]["content"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(!system(0).contains("[board]"), "{}", system(0));
    let second = system(1);
    assert!(
        second.contains("===== Relevant memories =====") && second.contains("[board]"),
        "{second}"
    );
    assert!(
        second.contains("> User: Put the kettle on, please"),
        "{second}"
    );
}

#[test]
fn chat_an_unknown_agent_lists_the_configured_ones() {
    let home = Home::new();
    let config = board_config(
        &home,
        "llm:\n  model: m\n  base_url: http://127.0.0.1:9/v1\n",
    );
    home.agcore()
        .args(["chat", "--agent", "nobody", "--config"])
        .arg(&config)
        .arg("--db")
        .arg(home.db())
        .write_stdin("hi\n")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "no agent named `nobody`; agents: `helper`",
        ));
}

#[test]
fn chat_against_the_real_local_server_writes_the_board() {
    let (Some(url), Some(model)) = (
        service_url("AGCORE_TEST_OPENAI_BASE_URL"),
        service_url("AGCORE_TEST_OPENAI_MODEL"),
    ) else {
        return;
    };
    let home = Home::new();
    let config = board_config(&home, "llm:\n  max_tokens: 32\n");
    let output = home
        .agcore()
        .args([
            "chat", "--agent", "helper", "--user", "alice", "--model", &model, "--config",
        ])
        .arg(&config)
        .arg("--db")
        .arg(home.db())
        .env("OPENAI_BASE_URL", &url)
        .write_stdin("Name one colour of the rainbow.\n")
        .timeout(std::time::Duration::from_secs(240))
        .assert()
        .success()
        .get_output()
        .clone();
    let Ok(board) = std::fs::read_to_string(home.path("board.json")) else {
        panic!(
            "no board written; the chat printed:\n{}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    };
    assert!(board.contains("Name one colour of the rainbow."), "{board}");
    assert!(board.contains("Assistant:"), "{board}");
}
