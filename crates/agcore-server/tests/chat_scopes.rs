//! Chat and scopes: a scoped key never chats in another scope nor
//! continues another scope's conversation (the isolation checks of chat).

use std::sync::Arc;

use agcore::agent::LongTermOptions;
use agcore::llm::MockProvider;
use axum::http::StatusCode;
use serde_json::json;

use crate::chat::{chat, chat_server, parts, save};

#[tokio::test]
async fn a_scoped_key_never_chats_in_another_scope() {
    const MARK: &str = "zebra-secret-4711";
    let provider = Arc::new(
        MockProvider::new()
            .push_text("victim reply")
            .push_text("attacker reply"),
    );
    let server = chat_server(provider.clone(), LongTermOptions::default()).await;
    let admin = server.admin();
    save(&server, &admin, "b/v", &format!("the code is {MARK}")).await;
    let body = json!({"message": format!("remember {MARK}"), "session": "shared"});
    let (status, _) = chat(&server, "/v1/scopes/b/v/chat", &admin, body).await;
    assert_eq!(status, StatusCode::OK);

    let attacker = server.key("a", "u");
    let message = format!("what is the code {MARK}?");
    for path in ["/v1/scopes/b/v/chat", "/v1/scopes/a/u/chat"] {
        let (status, _) = chat(&server, path, &attacker, json!({"message": message})).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{path}");
    }
    for extra in [
        json!({"agent": "b"}),
        json!({"user": "v"}),
        json!({"scope": "b/v"}),
    ] {
        let mut body = json!({"message": message});
        body.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, _) = chat(&server, "/v1/chat", &attacker, body).await;
        assert!(status.is_client_error(), "{status}");
    }
    let (status, _) = chat(&server, "/v1/chat", &admin, json!({"message": message})).await;
    assert_eq!(
        status,
        StatusCode::FORBIDDEN,
        "an admin key names the scope"
    );

    let body = json!({"message": "what is the code?", "session": "shared"});
    let (_, events) = chat(&server, "/v1/chat", &attacker, body).await;
    let (_, context, _, done) = parts(&events);
    assert!(!context.to_string().contains(MARK), "{context}");
    assert_eq!(done["reply"], "attacker reply");
    let request = &provider.requests()[1];
    let seen: String = request.messages.iter().map(|m| m.text()).collect();
    assert!(
        !seen.contains(MARK),
        "another scope's conversation leaked: {seen}"
    );
    assert_eq!(provider.request_count(), 2);
}
