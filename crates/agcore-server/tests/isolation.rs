//! A key bound to one scope never reads or changes another: a property test
//! over random hostile requests and a campaign of 10,000 of them (paths,
//! bodies, query strings, MCP arguments naming the victim's scope and ids),
//! counting leaks (the victim's text in any answer) and changes (the
//! victim's memories after the campaign differ from before).

use agcore_server::Limits;
use axum::http::StatusCode;
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::common::TestServer;

/// Text only the victim's memories hold.
const MARK: &str = "VICTIM-SECRET";

/// One hostile request: method, path, body.
type Attack = (String, String, Option<String>);

fn mcp_call(tool: &str, args: Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
           "params": {"name": tool, "arguments": args}})
    .to_string()
}

/// The hostile request number `n` against victim ids `ids`.
fn attack(n: usize, ids: &[i64]) -> Attack {
    let id = ids[n % ids.len()];
    let other = ["b", "v", "b%2Fv", "..", "%2e%2e", "b/v", "*", "%00"][n % 8];
    let body = |v: Value| Some(v.to_string());
    let a = |m: &str, p: String, b: Option<String>| (m.to_owned(), p, b);
    match n % 24 {
        0 => a("GET", format!("/v1/memories/{id}"), None),
        1 => a(
            "PATCH",
            format!("/v1/memories/{id}"),
            body(json!({"content": "overwritten"})),
        ),
        2 => a("DELETE", format!("/v1/memories/{id}"), None),
        3 => a("POST", format!("/v1/memories/{id}/archive"), None),
        4 => a("POST", format!("/v1/memories/{id}/restore"), None),
        5 => a(
            "PUT",
            format!("/v1/memories/{id}/weight"),
            body(json!({"weight": 0.0})),
        ),
        6 => a("GET", format!("/v1/scopes/b/v/memories/{id}"), None),
        7 => a("DELETE", format!("/v1/scopes/b/v/memories/{id}"), None),
        8 => a("GET", format!("/v1/scopes/{other}/{other}/memories"), None),
        9 => a("GET", format!("/v1/memories?agent=b&user=v&id={id}"), None),
        10 => a(
            "GET",
            format!("/v1/memories/search?q={MARK}&user_id=v"),
            None,
        ),
        11 => a("GET", format!("/v1/memories/search?q={MARK}"), None),
        12 => a(
            "POST",
            "/v1/memories".into(),
            body(json!({"content": "planted", "agent_name": "b", "user_id": "v"})),
        ),
        13 => a(
            "POST",
            "/v1/memories".into(),
            body(json!({"content": "planted", "metadata": {"user_id": "v"}})),
        ),
        14 => a(
            "GET",
            format!("/v1/memories/../scopes/b/v/memories/{id}"),
            None,
        ),
        15 => a("GET", "/v1/memories/export?user=v".into(), None),
        16 => a(
            "POST",
            "/v1/memories/import".into(),
            Some(format!(
                "{{\"id\":{id},\"agent_name\":\"b\",\"user_id\":\"v\",\"type\":\"user\",\"name\":\"n\",\"content\":\"imported {n}\",\"description\":\"\",\"metadata\":{{}},\"tags\":[],\"weight\":1.0,\"archived\":false,\"use_count\":0,\"last_used_at\":null,\"weight_updated_at\":\"2026-01-01T00:00:00Z\",\"created_at\":\"2026-01-01T00:00:00Z\",\"updated_at\":\"2026-01-01T00:00:00Z\"}}\n"
            )),
        ),
        17 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call(
                "memory_delete",
                json!({"id": id, "user": "v", "agent": "b"}),
            )),
        ),
        18 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call(
                "memory_save",
                json!({"action": "update", "id": id, "name": "x", "type": "user", "content": "overwritten", "user_id": "v"}),
            )),
        ),
        19 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call(
                "memory_recall",
                json!({"query": MARK, "user_id": "v", "agent_name": "b"}),
            )),
        ),
        20 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call(
                "memory_search",
                json!({"query": MARK, "scope": "b/v"}),
            )),
        ),
        21 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call("memory_list", json!({"limit": 50, "user": "v"}))),
        ),
        22 => a(
            "POST",
            "/mcp".into(),
            Some(mcp_call(
                "memory_save",
                json!({"action": "delete", "id": id, "name": "x", "type": "user"}),
            )),
        ),
        _ => a("GET", format!("/v1/memories/{id}?user=v"), None),
    }
}

/// The victim's memories, in a comparable form.
async fn victim_state(server: &TestServer) -> Vec<Value> {
    let admin = server.admin();
    let (_, page) = server
        .call(
            "GET",
            "/v1/scopes/b/v/memories?archived=include&order=created&limit=500",
            Some(&admin),
            None,
        )
        .await;
    page["memories"].as_array().unwrap().clone()
}

/// A server with a victim (b, v) holding marked memories and an attacker
/// key (a, u) holding its own; the victim's ids.
async fn setup() -> (TestServer, String, Vec<i64>) {
    // Limits high enough that every request reaches the handlers (no 429).
    let server = TestServer::with_limits(Limits {
        requests_per_second: 1_000_000,
        burst: 1_000_000,
        ..Limits::default()
    })
    .await;
    let victim = server.key("b", "v");
    let attacker = server.key("a", "u");
    let mut ids = Vec::new();
    for n in 0..6 {
        let (_, saved) = server
            .call(
                "POST",
                "/v1/memories",
                Some(&victim),
                Some(json!({"content": format!("{MARK} number {n}: the vault code")})),
            )
            .await;
        ids.push(saved["memory"]["id"].as_i64().unwrap());
    }
    for n in 0..3 {
        server
            .call(
                "POST",
                "/v1/memories",
                Some(&attacker),
                Some(json!({"content": format!("my own note {n}")})),
            )
            .await;
    }
    (server, attacker, ids)
}

/// What a campaign saw.
#[derive(Debug, Default)]
struct Tally {
    sent: usize,
    leaks: usize,
    /// MCP tool calls that reached a tool (a JSON-RPC result, success or tool error).
    mcp_results: usize,
    /// API answers by status class: 2xx, 4xx.
    ok: usize,
    refused: usize,
}

/// Runs attacks `range`.
async fn run(
    server: &TestServer,
    key: &str,
    ids: &[i64],
    range: impl Iterator<Item = usize>,
) -> Tally {
    let mut tally = Tally::default();
    for n in range {
        let (method, path, body) = attack(n, ids);
        let (status, answer) = server.call_mcp_or_api(&method, &path, key, body).await;
        assert_ne!(
            status,
            StatusCode::INTERNAL_SERVER_ERROR,
            "{method} {path}: {answer}"
        );
        if answer.to_string().contains(MARK) {
            tally.leaks += 1;
            eprintln!("LEAK {method} {path}: {answer}");
        }
        if answer.get("result").is_some() {
            tally.mcp_results += 1;
        }
        if status.is_success() {
            tally.ok += 1;
        } else {
            tally.refused += 1;
        }
        tally.sent += 1;
    }
    tally
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_hostile_requests_leak_and_change_nothing() {
    let (server, attacker, ids) = setup().await;
    let before = victim_state(&server).await;
    let tally = run(&server, &attacker, &ids, 0..10_000).await;
    let after = victim_state(&server).await;
    let changes = before.iter().zip(&after).filter(|(a, b)| a != b).count()
        + before.len().abs_diff(after.len());
    eprintln!("hostile campaign in process: {tally:?}, {changes} changes");
    assert_eq!(tally.sent, 10_000);
    assert_eq!(tally.leaks, 0);
    assert_eq!(
        tally.mcp_results,
        6 * 416,
        "the MCP attacks reached the tools: {tally:?}"
    );
    assert!(tally.ok > 0 && tally.refused > 0, "{tally:?}");
    assert_eq!(changes, 0);
    assert_eq!(after.len(), 6);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn a_scoped_key_never_reaches_another_scope(attacks in proptest::collection::vec(0usize..10_000, 1..40)) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            let (server, attacker, ids) = setup().await;
            let before = victim_state(&server).await;
            let tally = run(&server, &attacker, &ids, attacks.into_iter()).await;
            let after = victim_state(&server).await;
            prop_assert_eq!(tally.leaks, 0);
            prop_assert_eq!(before, after);
            Ok(())
        })?;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_over_a_real_socket_leak_and_change_nothing() {
    let (server, attacker, ids) = setup().await;
    let before = victim_state(&server).await;
    let (addr, stop, task) = crate::mcp::spawn(&server).await;
    let http = reqwest::Client::new();
    let mut leaks = 0;
    for n in 0..1_000 {
        let (method, path, body) = attack(n, &ids);
        let mut request = http
            .request(method.parse().unwrap(), format!("http://{addr}{path}"))
            .bearer_auth(&attacker)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(body) = body {
            request = request.body(body);
        }
        let response = request.send().await.unwrap();
        assert_ne!(response.status(), 500, "{method} {path}");
        if response.text().await.unwrap().contains(MARK) {
            leaks += 1;
        }
    }
    stop.send(()).unwrap();
    task.await.unwrap();
    let after = victim_state(&server).await;
    eprintln!("hostile campaign over a socket: 1000 requests, {leaks} leaks");
    assert_eq!(leaks, 0);
    assert_eq!(before, after);
}
