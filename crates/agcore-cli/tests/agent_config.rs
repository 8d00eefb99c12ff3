//! What a configuration file says per agent acts in `agcore chat` and
//! `agcore memory`: the long-term backend (global and per agent, seed 004
//! §8.1), the memory language, the prompts folder (seed 002's
//! `memory_extractor.md`), and seed 003's DevAll layout with per-node
//! provider, model and prompt template.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use serde_json::{Value, json};
use wiremock::matchers::{method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

/// Matches requests whose body contains (or lacks) `needle`.
struct BodyHas(&'static str, bool);

impl Match for BodyHas {
    fn matches(&self, request: &Request) -> bool {
        String::from_utf8_lossy(&request.body).contains(self.0) == self.1
    }
}

/// A server answering every streamed request with `reply` and every
/// extraction request with no facts.
async fn server(reply: &str) -> MockServer {
    let server = MockServer::start().await;
    let chunk = |delta: Value, finish: Option<&str>| {
        json!({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let body = format!(
        "data: {}\n\ndata: {}\n\ndata: [DONE]\n\n",
        chunk(json!({"role": "assistant", "content": reply}), None),
        chunk(json!({}), Some("stop"))
    );
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true", true))
        .respond_with(ResponseTemplate::new(200).set_body_raw(body, "text/event-stream"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/v1/chat/completions"))
        .and(BodyHas("\"stream\":true", false))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "id": "c2", "object": "chat.completion", "created": 1, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "{\"facts\": []}"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
        })))
        .mount(&server)
        .await;
    server
}

/// Runs `agcore <args>` with `stdin` expecting success; (stdout, stderr).
async fn run(home: &Home, args: &[&str], stdin: &str) -> (String, String) {
    let mut cmd = home.agcore();
    cmd.args(args).write_stdin(stdin.to_owned());
    let out = tokio::task::spawn_blocking(move || cmd.assert().success().get_output().clone())
        .await
        .unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

async fn bodies(server: &MockServer) -> Vec<Value> {
    server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect()
}

fn system(body: &Value) -> String {
    body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

fn write(home: &Home, name: &str, text: &str) -> String {
    let file = home.path(name);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, text).unwrap();
    file.display().to_string()
}

#[test]
fn the_global_backend_acts_in_memory_commands() {
    let home = Home::new();
    // `memory`: nothing persists between two commands, no database file appears.
    let config = write(
        &home,
        "a.toml",
        "[memory.long_term]\nbackend = \"memory\"\n",
    );
    let add = [
        "--config",
        &config,
        "memory",
        "add",
        "Likes tea",
        "--user",
        "u",
    ];
    home.agcore().args(add).assert().success();
    let list = ["--config", &config, "memory", "list", "--user", "u"];
    let out = home
        .agcore()
        .args(list)
        .assert()
        .success()
        .get_output()
        .clone();
    assert!(!String::from_utf8_lossy(&out.stdout).contains("Likes tea"));
    assert!(!home.path("data/agcore/memory.db").exists());
    // A URL: that database, before `[storage] url`.
    let url = format!("sqlite://{}", home.path("lt.db").display());
    let text = format!("[storage]\nurl = \"other.db\"\n[memory.long_term]\nbackend = \"{url}\"\n");
    let config = write(&home, "b.toml", &text);
    let add = [
        "--config",
        &config,
        "memory",
        "add",
        "Likes tea",
        "--user",
        "u",
    ];
    home.agcore().args(add).assert().success();
    assert!(home.path("lt.db").exists() && !home.path("other.db").exists());
    // A server word with no server URL is refused, naming the key.
    let config = write(&home, "c.toml", "[memory.long_term]\nbackend = \"mysql\"\n");
    let out = home
        .agcore()
        .args(["--config", &config, "memory", "list"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("memory.long_term.backend") && stderr.contains("mysql://"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_agent_memory_settings_act_in_chat() {
    let server = server("ok").await;
    let home = Home::new();
    let text = format!(
        "llm:\n  base_url: {}/v1\n  model: mock\n\
         memory:\n  long_term:\n    max_return: 5\n\
         memory_agent:\n  enabled: false\n\
         agents:\n  helper:\n    memory:\n      sqlitePath: helper.db\n      prefetchLimit: 1\n      language: zh\n\
         \x20 quiet:\n    memory:\n      enabled: false\n",
        server.uri()
    );
    let config = write(&home, "cfg/agents.yaml", &text);
    for fact in [
        "Alice drinks green tea daily",
        "Alice brews green tea at noon",
    ] {
        let args = [
            "--config", &config, "memory", "add", fact, "--agent", "helper", "--user", "alice",
        ];
        home.agcore().args(args).assert().success();
    }
    // The agent's SQLite file, beside the configuration file.
    assert!(home.path("cfg/helper.db").exists());
    let args = [
        "--config", &config, "chat", "--agent", "helper", "--user", "alice",
    ];
    run(&home, &args, "hello\ntell me about green tea\n").await;
    let sent = bodies(&server).await;
    let last = system(sent.last().unwrap());
    assert!(last.contains("## 记忆系统"), "Chinese instructions: {last}");
    let injected = ["drinks green tea", "brews green tea"]
        .iter()
        .filter(|f| last.contains(*f))
        .count();
    assert_eq!(injected, 1, "prefetchLimit 1: {last}");
    // `enabled: false`: no memory tools, no instructions.
    let args = [
        "--config", &config, "chat", "--agent", "quiet", "--user", "alice",
    ];
    run(&home, &args, "hello\n").await;
    let sent = bodies(&server).await;
    let quiet = sent.last().unwrap();
    assert!(quiet.get("tools").is_none(), "no memory tools: {quiet}");
    assert!(!system(quiet).contains("## Memory system"), "{quiet}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_prompts_folder_overrides_named_templates() {
    let server = server("ok").await;
    let home = Home::new();
    let text = format!(
        "[llm]\nbase_url = \"{}/v1\"\nmodel = \"mock\"\n[memory]\nlanguage = \"zh\"\n\
         [memory_agent]\nenabled = true\n[memory_agent.extract]\nbatch_size = 1\n",
        server.uri()
    );
    let config = write(&home, "cfg/agcore.toml", &text);
    write(
        &home,
        "cfg/prompts/memory_extractor.md",
        "EXTRACTOR-OVERRIDE: list facts.",
    );
    write(
        &home,
        "cfg/prompts/cli.chat.base.md",
        "BASE-OVERRIDE: be brief.",
    );
    let db = home.db().display().to_string();
    let args = ["--config", &config, "chat", "--user", "alice", "--db", &db];
    run(&home, &args, "I work at the harbour\n").await;
    let sent = bodies(&server).await;
    let chat = system(&sent[0]);
    assert!(chat.contains("BASE-OVERRIDE: be brief."), "{chat}");
    assert!(chat.contains("## 记忆系统"), "{chat}");
    assert!(
        sent.iter()
            .any(|b| b["stream"] != json!(true) && b.to_string().contains("EXTRACTOR-OVERRIDE")),
        "the extraction request uses the file's prompt"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devall_nodes_choose_provider_model_and_prompt() {
    let default = server("from default").await;
    let other = server("from other").await;
    let home = Home::new();
    let text = format!(
        "llm:\n  base_url: {}/v1\n  model: base-model\n\
         providers:\n  other:\n    base_url: {}/v1\n\
         memory:\n  - name: convo_cache\n    type: simple\n    config: {{}}\n\
         nodes:\n\
         \x20 - id: answer\n    type: agent\n    config:\n      provider: other\n      model: gpt-4o-mini\n\
         \x20     prompt_template: answer_user\n      memories:\n        - name: convo_cache\n\
         \x20         retrieve_stage: [\"gen\"]\n          top_k: 5\n          read: true\n          write: true\n\
         \x20 - id: plain\n    type: agent\n    config:\n      provider: openai\n",
        default.uri(),
        other.uri()
    );
    let config = write(&home, "dev/graph.yaml", &text);
    write(&home, "dev/prompts/answer_user.md", "ANSWER-USER template.");
    let db = home.db().display().to_string();
    let args = [
        "--config", &config, "chat", "--agent", "answer", "--db", &db,
    ];
    let (stdout, _) = run(&home, &args, "hello\n").await;
    assert!(stdout.contains("from other"), "{stdout}");
    let sent = bodies(&other).await;
    assert_eq!(sent[0]["model"], "gpt-4o-mini");
    assert!(
        system(&sent[0]).contains("ANSWER-USER template."),
        "{}",
        system(&sent[0])
    );
    assert!(bodies(&default).await.is_empty());
    let args = ["--config", &config, "chat", "--agent", "plain", "--db", &db];
    let (stdout, _) = run(&home, &args, "hello\n").await;
    assert!(stdout.contains("from default"), "{stdout}");
    assert_eq!(bodies(&default).await[0]["model"], "base-model");
}
