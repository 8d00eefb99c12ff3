//! The HTTP JSON API in process: auth, memories, search, export / import, limits.

use agcore_server::Limits;
use axum::http::StatusCode;
use serde_json::json;

use crate::common::TestServer;

#[tokio::test]
async fn health_is_open_and_everything_else_needs_a_key() {
    let server = TestServer::new().await;
    let (status, body) = server.call("GET", "/health", None, None).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["status"], "ok");
    let (status, body) = server.call("GET", "/v1/memories", None, None).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(body["error"].as_str().unwrap().contains("Bearer"));
    let (status, _) = server
        .call("GET", "/v1/memories", Some("agk_not-a-key"), None)
        .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _) = server.call("POST", "/mcp", None, Some(json!({}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn a_memory_goes_through_its_whole_life() {
    let server = TestServer::new().await;
    let key = server.key("helper", "alice");
    let k = Some(key.as_str());
    let (status, saved) = server
        .call(
            "POST",
            "/v1/memories",
            k,
            Some(json!({"content": "Alice drinks oat-milk flat whites", "type": "user"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{saved}");
    let id = saved["memory"]["id"].as_i64().unwrap();
    assert_eq!(saved["memory"]["metadata"]["source"], "http api");
    let (status, again) = server
        .call(
            "POST",
            "/v1/memories",
            k,
            Some(json!({"content": "alice DRINKS oat-milk flat whites"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(again["created"], false);

    let (status, found) = server
        .call("GET", "/v1/memories/search?q=flat%20white&limit=3", k, None)
        .await;
    assert_eq!(status, StatusCode::OK, "{found}");
    let hit = &found["hits"][0];
    assert_eq!(hit["item"]["id"].as_i64(), Some(id));
    assert!(
        hit["breakdown"]["lexical"]["score"].as_f64().unwrap() > 0.0,
        "{hit}"
    );

    let (status, got) = server
        .call("GET", &format!("/v1/memories/{id}"), k, None)
        .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        got["content"], "alice DRINKS oat-milk flat whites",
        "the same text again updates it"
    );
    let (status, changed) = server
        .call(
            "PATCH",
            &format!("/v1/memories/{id}"),
            k,
            Some(json!({"content": "Alice drinks black coffee"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    assert_eq!(changed["content"], "Alice drinks black coffee");
    let (_, weighted) = server
        .call(
            "PUT",
            &format!("/v1/memories/{id}/weight"),
            k,
            Some(json!({"weight": 3.5})),
        )
        .await;
    assert_eq!(weighted["weight"], 3.5);
    let (_, archived) = server
        .call("POST", &format!("/v1/memories/{id}/archive"), k, None)
        .await;
    assert_eq!(archived["archived"], true);
    let (_, page) = server.call("GET", "/v1/memories", k, None).await;
    assert_eq!(page["memories"].as_array().unwrap().len(), 0);
    let (_, page) = server
        .call("GET", "/v1/memories?archived=only", k, None)
        .await;
    assert_eq!(page["memories"].as_array().unwrap().len(), 1);
    let (_, restored) = server
        .call("POST", &format!("/v1/memories/{id}/restore"), k, None)
        .await;
    assert_eq!(restored["archived"], false);
    let (_, stats) = server.call("GET", "/v1/memories/stats", k, None).await;
    assert_eq!(stats["active"], 1);
    assert_eq!(stats["agent"], "helper");
    let (status, _) = server
        .call("DELETE", &format!("/v1/memories/{id}"), k, None)
        .await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _) = server
        .call("GET", &format!("/v1/memories/{id}"), k, None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}

#[tokio::test]
async fn listing_pages_and_filters() {
    let server = TestServer::new().await;
    let key = server.key("a", "u");
    for n in 0..7 {
        let kind = if n % 2 == 0 { "user" } else { "project" };
        server
            .call(
                "POST",
                "/v1/memories",
                Some(&key),
                Some(json!({"content": format!("fact number {n}"), "type": kind})),
            )
            .await;
    }
    let (_, first) = server
        .call(
            "GET",
            "/v1/memories?limit=3&order=created",
            Some(&key),
            None,
        )
        .await;
    assert_eq!(first["memories"].as_array().unwrap().len(), 3);
    assert_eq!(first["next_offset"], 3);
    assert_eq!(first["memories"][0]["content"], "fact number 0");
    let (_, last) = server
        .call(
            "GET",
            "/v1/memories?limit=3&offset=6&order=created",
            Some(&key),
            None,
        )
        .await;
    assert_eq!(last["memories"].as_array().unwrap().len(), 1);
    assert!(last.get("next_offset").is_none());
    let (_, users) = server
        .call("GET", "/v1/memories?type=user", Some(&key), None)
        .await;
    assert_eq!(users["memories"].as_array().unwrap().len(), 4);
    let (status, _) = server
        .call("GET", "/v1/memories?order=sideways", Some(&key), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = server
        .call("GET", "/v1/memories?agent=b&user=v", Some(&key), None)
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn admin_keys_name_the_scope_and_scoped_keys_cannot() {
    let server = TestServer::new().await;
    let admin = server.admin();
    let key = server.key("a", "u");
    let (status, _) = server
        .call(
            "POST",
            "/v1/scopes/b/v/memories",
            Some(&admin),
            Some(json!({"content": "secret of v"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    let (status, _) = server
        .call("GET", "/v1/scopes/b/v/memories", Some(&key), None)
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, _) = server.call("GET", "/v1/memories", Some(&admin), None).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (_, page) = server
        .call("GET", "/v1/scopes/b/v/memories", Some(&admin), None)
        .await;
    assert_eq!(page["memories"][0]["content"], "secret of v");
}

#[tokio::test]
async fn export_and_import_stream_jsonl_into_the_callers_scope() {
    let server = TestServer::new().await;
    let from = server.key("a", "u");
    let into = server.key("a", "w");
    for text in ["one 一", "two 二", "three 三"] {
        server
            .call(
                "POST",
                "/v1/memories",
                Some(&from),
                Some(json!({"content": text})),
            )
            .await;
    }
    let (status, body) = server
        .call("GET", "/v1/memories/export", Some(&from), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let text = body.as_str().unwrap().to_owned();
    assert_eq!(text.lines().count(), 3);
    let (status, done) = server
        .call_raw(
            "POST",
            "/v1/memories/import",
            Some(&into),
            Some(text.clone()),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{done}");
    assert_eq!(done, json!({"imported": 3, "skipped": 0}));
    let (_, again) = server
        .call_raw("POST", "/v1/memories/import", Some(&into), Some(text))
        .await;
    assert_eq!(again, json!({"imported": 0, "skipped": 3}));
    let (_, page) = server.call("GET", "/v1/memories", Some(&into), None).await;
    assert!(
        page["memories"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["user_id"] == "w")
    );
    let (status, bad) = server
        .call_raw(
            "POST",
            "/v1/memories/import",
            Some(&into),
            Some("{\n".into()),
        )
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(bad["error"].as_str().unwrap().contains("line 1"));
}

#[tokio::test]
async fn oversized_bodies_get_413_and_floods_get_429() {
    let limits = Limits {
        body_bytes: 1024,
        requests_per_second: 1,
        burst: 5,
        ..Limits::default()
    };
    let server = TestServer::with_limits(limits).await;
    let key = server.key("a", "u");
    let big = "x".repeat(4096);
    let (status, body) = server
        .call(
            "POST",
            "/v1/memories",
            Some(&key),
            Some(json!({"content": big})),
        )
        .await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(
        body["error"].as_str().unwrap().contains("too large"),
        "{body}"
    );
    let mut statuses = Vec::new();
    for _ in 0..10 {
        statuses.push(server.call("GET", "/v1/memories", Some(&key), None).await.0);
    }
    assert!(
        statuses.contains(&StatusCode::TOO_MANY_REQUESTS),
        "{statuses:?}"
    );
    let other = server.key("a", "v");
    let (status, _) = server.call("GET", "/v1/memories", Some(&other), None).await;
    assert_eq!(status, StatusCode::OK, "each key has its own bucket");
}

#[tokio::test]
async fn agents_are_managed_by_admin_keys_and_seen_by_their_own_scoped_keys() {
    let server = TestServer::new().await;
    let admin = server.admin();
    let helper = server.key("helper", "alice");
    let agent = json!({"name": "helper", "description": "answers questions",
        "memory": {"enabled": true, "backend_url": "sqlite:///tmp/helper.db", "prefetch_limit": 8, "attachments": ["docs"]}});
    let (status, _) = server
        .call("POST", "/v1/agents", Some(&helper), Some(agent.clone()))
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let (status, created) = server
        .call("POST", "/v1/agents", Some(&admin), Some(agent.clone()))
        .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let (status, _) = server
        .call("POST", "/v1/agents", Some(&admin), Some(agent))
        .await;
    assert_eq!(status, StatusCode::CONFLICT);
    server
        .call(
            "POST",
            "/v1/agents",
            Some(&admin),
            Some(json!({"name": "other"})),
        )
        .await;
    let (_, mine) = server.call("GET", "/v1/agents", Some(&helper), None).await;
    assert_eq!(mine.as_array().unwrap().len(), 1);
    assert_eq!(mine[0]["memory"]["prefetch_limit"], 8);
    let (status, _) = server
        .call("GET", "/v1/agents/other", Some(&helper), None)
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, changed) = server
        .call(
            "PUT",
            "/v1/agents/helper",
            Some(&admin),
            Some(json!({"name": "helper", "memory": {"enabled": false}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{changed}");
    let (_, got) = server
        .call("GET", "/v1/agents/helper", Some(&helper), None)
        .await;
    assert_eq!(got["memory"]["enabled"], false);
    assert_eq!(got["memory"]["prefetch_limit"], 5);
}
