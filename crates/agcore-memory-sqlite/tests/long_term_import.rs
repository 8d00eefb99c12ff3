//! Backup import (`import_entries`): whole entries restored losslessly under
//! new ids, duplicates skipped, bad input rejected before any write — on
//! every backend.
#![cfg(test)]

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    ArchivedFilter, InMemoryLongTerm, ListOrder, ListRequest, LongTermMemory, MemoryEntry,
    MemoryType, NewMemory,
};
use agcore_memory_sqlite::SqliteLongTerm;
use chrono::{DateTime, Utc};

async fn backends() -> Vec<(&'static str, LongTermMemory, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().unwrap();
    let file = SqliteLongTerm::open(dir.path().join("lt.db"))
        .await
        .unwrap();
    vec![
        (
            "in-memory",
            LongTermMemory::new(InMemoryLongTerm::new()),
            None,
        ),
        (
            "sqlite-memory",
            LongTermMemory::new(SqliteLongTerm::open_in_memory().await.unwrap()),
            None,
        ),
        ("sqlite-file", LongTermMemory::new(file), Some(dir)),
    ]
}

fn at(secs: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(secs, 123_456_000).unwrap()
}

/// An entry as an export would hold it, with every field away from its default.
fn exported(id: i64, agent: &str, user: &str, content: &str) -> MemoryEntry {
    let mut metadata = serde_json::Map::new();
    metadata.insert(
        "source".into(),
        serde_json::json!({"file": "notes.md", "line": 7}),
    );
    MemoryEntry {
        id,
        agent_name: agent.into(),
        user_id: user.into(),
        memory_type: MemoryType::Project,
        name: format!("name of {id}"),
        content: content.into(),
        description: "一行描述".into(),
        metadata,
        tags: vec!["alpha".into(), "beta".into()],
        weight: 2.75,
        archived: id % 2 == 0,
        use_count: 4,
        last_used_at: Some(at(1_700_000_300)),
        weight_updated_at: at(1_700_000_200),
        created_at: at(1_700_000_000),
        updated_at: at(1_700_000_100),
    }
}

fn without_id(mut entry: MemoryEntry) -> MemoryEntry {
    entry.id = 0;
    entry
}

fn everything() -> ListRequest {
    let mut request = ListRequest::all().order(ListOrder::Created);
    request.archived = ArchivedFilter::Include;
    request
}

#[tokio::test]
async fn imported_entries_keep_every_field_but_the_id() {
    for (name, memory, _dir) in backends().await {
        let alice = memory.scope("assistant", "alice").unwrap();
        let input = vec![
            exported(41, "other", "someone", "Alice prefers green tea"),
            exported(42, "other", "someone", "用户喜欢用中文交流"),
        ];
        let outcomes = alice.import_entries(input.clone()).await.unwrap();
        assert!(outcomes.iter().all(|o| o.created), "{name}");
        let stored = alice.list(&everything()).await.unwrap();
        assert_eq!(stored.len(), 2, "{name}");
        for (got, want) in stored.iter().zip(&input) {
            let mut want = want.clone();
            want.agent_name = "assistant".into();
            want.user_id = "alice".into();
            assert_eq!(without_id(got.clone()), without_id(want), "{name}");
        }
        // Imported entries are searchable like saved ones (archived ones are not).
        let hits = alice.search("green tea", 5).await.unwrap();
        assert_eq!(hits.len(), 1, "{name}");
        assert_eq!(hits[0].entry.id, outcomes[0].entry.id, "{name}");
        // A later save of the same text merges into the imported entry.
        let again = alice
            .save(NewMemory::new(
                MemoryType::User,
                "t",
                "alice PREFERS green tea",
            ))
            .await
            .unwrap();
        assert!(
            !again.created && again.entry.id == outcomes[0].entry.id,
            "{name}"
        );
    }
}

#[tokio::test]
async fn duplicates_are_skipped_and_reported() {
    for (name, memory, _dir) in backends().await {
        let alice = memory.scope("assistant", "alice").unwrap();
        let saved = alice
            .save(NewMemory::new(
                MemoryType::User,
                "tea",
                "Alice prefers green tea",
            ))
            .await
            .unwrap()
            .entry;
        let outcomes = alice
            .import_entries(vec![
                exported(1, "a", "u", "alice  prefers GREEN tea"),
                exported(3, "a", "u", "A new fact"),
                exported(5, "a", "u", "a new   FACT"),
            ])
            .await
            .unwrap();
        assert_eq!(
            outcomes.iter().map(|o| o.created).collect::<Vec<_>>(),
            vec![false, true, false],
            "{name}"
        );
        assert_eq!(outcomes[0].entry, saved, "{name}");
        assert_eq!(outcomes[2].entry.id, outcomes[1].entry.id, "{name}");
        assert_eq!(alice.list(&everything()).await.unwrap().len(), 2, "{name}");
    }
}

#[tokio::test]
async fn store_wide_import_keeps_each_entry_in_its_scope() {
    for (name, memory, _dir) in backends().await {
        let outcomes = memory
            .import_entries(vec![
                exported(1, "assistant", "alice", "Alice likes tea"),
                exported(2, "assistant", "bob", "Bob likes coffee"),
                exported(3, "coder", "alice", "Alice writes Rust"),
            ])
            .await
            .unwrap();
        assert_eq!(outcomes.len(), 3, "{name}");
        let ids: std::collections::HashSet<i64> = outcomes.iter().map(|o| o.entry.id).collect();
        assert_eq!(ids.len(), 3, "{name}: ids are distinct");
        for (agent, user, text) in [
            ("assistant", "alice", "Alice likes tea"),
            ("assistant", "bob", "Bob likes coffee"),
            ("coder", "alice", "Alice writes Rust"),
        ] {
            let listed = memory
                .scope(agent, user)
                .unwrap()
                .list(&everything())
                .await
                .unwrap();
            assert_eq!(listed.len(), 1, "{name} {agent}/{user}");
            assert_eq!(listed[0].content, text, "{name}");
        }
        assert_eq!(memory.scopes().await.unwrap().len(), 3, "{name}");
    }
}

#[tokio::test]
async fn bad_entries_are_rejected_before_anything_is_written() {
    for (name, memory, _dir) in backends().await {
        let alice = memory.scope("assistant", "alice").unwrap();
        let mut nan = exported(2, "a", "u", "weight is not a number");
        nan.weight = f64::NAN;
        let err = alice
            .import_entries(vec![exported(1, "a", "u", "fine"), nan])
            .await
            .unwrap_err();
        assert!(
            matches!(&err, MemoryError::InvalidInput(m) if m.contains("entry 2")),
            "{name}: {err}"
        );
        let err = alice
            .import_entries(vec![exported(1, "a", "u", "   ")])
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)), "{name}");
        let err = memory
            .import_entries(vec![exported(1, "", "u", "no agent")])
            .await
            .unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)), "{name}");
        assert!(
            alice.list(&everything()).await.unwrap().is_empty(),
            "{name}"
        );
        assert!(memory.scopes().await.unwrap().is_empty(), "{name}");
    }
}

#[tokio::test]
async fn sqlite_file_import_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lt.db");
    let original = exported(7, "assistant", "alice", "Persisted fact");
    {
        let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
        memory.import_entries(vec![original.clone()]).await.unwrap();
        memory.close().await.unwrap();
    }
    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    let listed = memory
        .scope("assistant", "alice")
        .unwrap()
        .list(&everything())
        .await
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(without_id(listed[0].clone()), without_id(original));
}
