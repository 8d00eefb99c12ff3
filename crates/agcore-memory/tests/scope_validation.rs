//! Hostile agent names and user ids are refused with a clear error through
//! every public way of building a scope.

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    InMemoryLongTerm, LongTermMemory, MAX_SCOPE_PART_BYTES, MemoryScope, MemoryType, NewMemory,
};

/// (agent, user, words the error must contain).
fn hostile() -> Vec<(String, String, &'static str)> {
    let long = "x".repeat(MAX_SCOPE_PART_BYTES + 1);
    [
        ("", "alice", "agent name \"\" is empty"),
        ("assistant", "", "user id \"\" is empty"),
        ("assistant", "   ", "is empty"),
        ("assistant", "alice ", "leading or trailing whitespace"),
        (" assistant", "alice", "leading or trailing whitespace"),
        ("assistant", "\u{a0}alice", "leading or trailing whitespace"),
        ("assistant", long.as_str(), "bytes (max 256)"),
        (long.as_str(), "alice", "bytes (max 256)"),
        ("assistant", "a\u{0}b", "control character U+0000"),
        ("assistant", "tab\there", "control character U+0009"),
        ("assistant", "a\u{1f}b", "control character U+001F"),
        ("assistant\u{7f}", "alice", "control character U+007F"),
        (
            "assistant",
            "alice\u{200b}",
            "invisible format character U+200B",
        ),
        (
            "assistant",
            "al\u{200d}ice",
            "invisible format character U+200D",
        ),
        (
            "assistant",
            "\u{202e}ecila",
            "invisible format character U+202E",
        ),
        (
            "assistant",
            "a\u{2066}b",
            "invisible format character U+2066",
        ),
        (
            "assistant",
            "\u{feff}alice",
            "invisible format character U+FEFF",
        ),
        (
            "assistant",
            "al\u{ad}ice",
            "invisible format character U+00AD",
        ),
        (
            "assistant",
            "a\u{e0041}b",
            "invisible format character U+E0041",
        ),
        ("assistant", "a\u{2028}b", "whitespace U+2028"),
        ("assistant", "a\u{3000}b", "whitespace U+3000"),
        ("assistant:alice", "bob", "reserved separator `:`"),
        ("team/assistant", "bob", "reserved separator `/`"),
    ]
    .into_iter()
    .map(|(a, u, why)| (a.to_owned(), u.to_owned(), why))
    .collect()
}

#[test]
fn hostile_ids_are_refused_by_the_constructor() {
    for (agent, user, why) in hostile() {
        match MemoryScope::new(agent.as_str(), user.as_str()) {
            Err(MemoryError::InvalidInput(message)) => assert!(
                message.contains(why),
                "{agent:?}/{user:?}: `{message}` should say `{why}`"
            ),
            other => panic!("{agent:?}/{user:?} must be refused, got {other:?}"),
        }
    }
}

#[tokio::test]
async fn hostile_ids_are_refused_by_long_term_memory() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    for (agent, user, why) in hostile() {
        let err = memory
            .scope(agent.as_str(), user.as_str())
            .err()
            .unwrap_or_else(|| panic!("{agent:?}/{user:?} must be refused"));
        assert!(err.to_string().contains(why), "{err}");
        assert!(!err.is_recoverable());
    }
    assert!(memory.scopes().await.unwrap().is_empty());
}

#[test]
fn hostile_ids_are_refused_when_deserialized() {
    for (agent, user, why) in hostile() {
        let json = serde_json::json!({ "agent": agent, "user": user });
        let err = serde_json::from_value::<MemoryScope>(json).unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
    let scope: MemoryScope =
        serde_json::from_value(serde_json::json!({ "agent": "assistant", "user": "a:b/c" }))
            .unwrap();
    assert_eq!((scope.agent(), scope.user()), ("assistant", "a:b/c"));
}

#[tokio::test]
async fn an_imported_entry_with_a_hostile_scope_is_refused() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    let alice = memory.scope("assistant", "alice").unwrap();
    let mut entry = alice
        .save(NewMemory::new(MemoryType::User, "tea", "Likes green tea"))
        .await
        .unwrap()
        .entry;
    entry.user_id = "alice\u{200b}".into();
    let err = entry.scope().unwrap_err();
    assert!(err.to_string().contains("U+200B"), "{err}");
    let err = memory.import_entries(vec![entry]).await.unwrap_err();
    assert!(
        matches!(&err, MemoryError::InvalidInput(m) if m.starts_with("entry 1:")),
        "{err}"
    );
}

#[test]
fn accepted_ids_keep_their_text() {
    for (agent, user) in [
        ("assistant", "Alice"),
        ("planner", "李雷"),
        ("assistant", "e\u{301}mile"),
        ("assistant", "org/team:alice@example.com"),
        ("assistant", "'; DROP TABLE entries; --"),
        ("my agent", "first last"),
    ] {
        let scope = MemoryScope::new(agent, user).unwrap();
        assert_eq!((scope.agent(), scope.user()), (agent, user));
        assert_eq!(scope.to_string(), format!("{agent}/{user}"));
    }
}
