//! Schema migrations: a database written with the version-1 layout
//! (by hand, with rows) opens with the current code, every row kept and
//! searchable; foreign or newer databases are refused untouched.
#![cfg(test)]

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    HistoryReason, ListOrder, ListRequest, LongTermMemory, MemoryType, NewMemory,
};
use agcore_memory_sqlite::{SqliteLongTerm, SqliteStore};
use rusqlite::Connection;

/// The original (version-1) DDL of the long-term `memory` table, verbatim
/// (see `docs/memory.md`, *Tables*).
const SPEC_V1: &str = r"
CREATE TABLE memory (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  agent_name TEXT NOT NULL,
  user_id TEXT NOT NULL,
  type TEXT NOT NULL CHECK(type IN ('user', 'project', 'feedback', 'reference')),
  name TEXT NOT NULL,
  content TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  metadata TEXT,
  created_at TEXT DEFAULT (datetime('now')),
  updated_at TEXT DEFAULT (datetime('now'))
);
CREATE INDEX idx_agent_user ON memory(agent_name, user_id);
CREATE VIRTUAL TABLE memory_fts USING fts5(
  name, content, description,
  content='memory', content_rowid='id',
  tokenize='trigram'
);
CREATE TRIGGER memory_ai AFTER INSERT ON memory BEGIN
  INSERT INTO memory_fts(rowid, name, content, description)
  VALUES (new.id, new.name, new.content, new.description);
END;
CREATE TRIGGER memory_ad AFTER DELETE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, name, content, description)
  VALUES ('delete', old.id, old.name, old.content, old.description);
END;
CREATE TRIGGER memory_au AFTER UPDATE ON memory BEGIN
  INSERT INTO memory_fts(memory_fts, rowid, name, content, description)
  VALUES ('delete', old.id, old.name, old.content, old.description);
  INSERT INTO memory_fts(rowid, name, content, description)
  VALUES (new.id, new.name, new.content, new.description);
END;
";

/// agent, user, type, name, content, description, metadata.
type V1Row = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

fn write_v1(path: &std::path::Path, set_version: bool) {
    let conn = Connection::open(path).unwrap();
    conn.execute_batch(SPEC_V1).unwrap();
    if set_version {
        conn.pragma_update(None, "user_version", 1).unwrap();
    }
    let rows: [V1Row; 6] = [
        (
            "assistant",
            "alice",
            "user",
            "用户偏好-简洁风格",
            "用户偏好简洁直接的回答风格，不喜欢冗长的解释。",
            "style",
            Some(r#"{"source":"manual"}"#),
        ),
        (
            "assistant",
            "alice",
            "project",
            "当前冲刺目标",
            "本周冲刺目标是完成支付模块重构，截止日期 2026-04-15。",
            "",
            None,
        ),
        (
            "assistant",
            "alice",
            "feedback",
            "No autoformat",
            "Do not auto-format the user's code.",
            "",
            Some("[1,2]"),
        ),
        (
            "assistant",
            "bob",
            "reference",
            "Docs",
            "https://example.org/docs",
            "docs link",
            Some("not json"),
        ),
        // Duplicates the old schema allowed: both rows must survive.
        ("assistant", "alice", "user", "dup", "Likes tea", "", None),
        ("assistant", "alice", "user", "dup", "likes  TEA", "", None),
    ];
    for (agent, user, ty, name, content, desc, meta) in rows {
        conn.execute(
            "INSERT INTO memory (agent_name, user_id, type, name, content, description, metadata) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            rusqlite::params![agent, user, ty, name, content, desc, meta],
        )
        .unwrap();
    }
    conn.execute(
        "UPDATE memory SET created_at = '2026-04-12 08:30:00' WHERE id = 1",
        [],
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn version_one_databases_upgrade_with_every_row() {
    for set_version in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v1.db");
        write_v1(&path, set_version);

        let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
        let alice = memory.scope("assistant", "alice").unwrap();
        let bob = memory.scope("assistant", "bob").unwrap();
        let all = alice
            .list(&ListRequest::all().order(ListOrder::Created))
            .await
            .unwrap();
        assert_eq!(all.len(), 5, "set_version={set_version}");
        assert_eq!(bob.list(&ListRequest::all()).await.unwrap().len(), 1);
        let first = &all[0];
        assert_eq!(first.id, 1);
        assert_eq!(first.memory_type, MemoryType::User);
        assert_eq!(
            first.content,
            "用户偏好简洁直接的回答风格，不喜欢冗长的解释。"
        );
        assert_eq!(first.description, "style");
        assert_eq!(first.metadata["source"], "manual");
        assert_eq!(first.created_at.to_rfc3339(), "2026-04-12T08:30:00+00:00");
        assert_eq!(
            (first.weight, first.archived, first.use_count),
            (1.0, false, 0)
        );
        assert_eq!(
            all[2].metadata["value"],
            serde_json::json!([1, 2]),
            "non-object metadata wrapped"
        );
        let docs = &bob.list(&ListRequest::all()).await.unwrap()[0];
        assert_eq!(
            docs.metadata["raw"], "not json",
            "invalid metadata kept as text"
        );

        // The rebuilt index finds old rows, in Chinese and English.
        assert_eq!(alice.search("简洁", 5).await.unwrap()[0].entry.id, 1);
        assert_eq!(alice.search("支付模块", 5).await.unwrap()[0].entry.id, 2);
        assert_eq!(alice.search("autoformat", 5).await.unwrap()[0].entry.id, 3);

        // New features work on migrated rows.
        alice.record_use("s", "q", &[1], true).await.unwrap();
        assert_eq!(alice.get(1).await.unwrap().unwrap().weight, 1.5);
        alice
            .supersede(2, "本周冲刺目标是完成支付模块重构，截止日期 2026-04-20。")
            .await
            .unwrap();
        assert_eq!(
            alice.history(2).await.unwrap()[0].reason,
            HistoryReason::Supersede
        );
        let again = alice
            .save(NewMemory::new(
                MemoryType::User,
                "",
                "Do not auto-format the user's code.",
            ))
            .await
            .unwrap();
        assert!(
            !again.created && again.entry.id == 3,
            "de-duplication covers migrated rows"
        );
        let dup = alice
            .save(NewMemory::new(MemoryType::User, "", "likes tea"))
            .await
            .unwrap();
        assert!(!dup.created && dup.entry.id == 5);
        alice.buffer_append("s", "hi", "hello").await.unwrap();
        memory.close().await.unwrap();

        // Reopening is a no-op migration; nothing lost. Earlier releases now
        // refuse the file (user_version above theirs), the unused FTS5 table
        // is gone and the store's component lives beside long-term memory.
        let conn = Connection::open(&path).unwrap();
        let v: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert!(v > 3, "user_version {v}");
        let components: Vec<(String, i64)> = conn
            .prepare("SELECT component, version FROM agcore_schema ORDER BY component")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            components,
            [
                ("bm25".into(), 3),
                ("long_term".into(), 6),
                ("store".into(), 6)
            ]
        );
        let n: i64 = conn
            .query_row("SELECT count(*) FROM memory", [], |r| r.get(0))
            .unwrap();
        assert_eq!(n, 6);
        let fts: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE name = 'memory_fts' \
                 AND sql LIKE '%content=''memory''%'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(fts, 0, "the long-term FTS5 table is dropped");
        let indexes: Vec<String> = conn
            .prepare(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'memory' \
                 AND sql IS NOT NULL ORDER BY name",
            )
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            indexes,
            ["memory_scope_active", "memory_scope_key"],
            "version 6: weights are not indexed"
        );
        drop(conn);
        let reopened = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
        let a = reopened.scope("assistant", "alice").unwrap();
        assert_eq!(a.list(&ListRequest::all()).await.unwrap().len(), 5);
        assert_eq!(a.buffer_pending("s", 10).await.unwrap().len(), 1);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn newer_or_foreign_databases_are_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    // A long-term file of a release after this one (no agcore_schema, higher user_version).
    let newer = dir.path().join("newer.db");
    {
        let conn = Connection::open(&newer).unwrap();
        conn.execute_batch("CREATE TABLE memory (id INTEGER PRIMARY KEY);")
            .unwrap();
        conn.pragma_update(None, "user_version", 4).unwrap();
    }
    let err = SqliteLongTerm::open(&newer).await.unwrap_err();
    assert!(
        matches!(err, MemoryError::Storage(ref m) if m.contains("newer")),
        "{err}"
    );

    // Another program's versioned database.
    let foreign = dir.path().join("foreign.db");
    {
        let conn = Connection::open(&foreign).unwrap();
        conn.execute_batch(
            "CREATE TABLE users (id INTEGER PRIMARY KEY); PRAGMA user_version = 12;",
        )
        .unwrap();
    }
    let err = SqliteLongTerm::open(&foreign).await.unwrap_err();
    assert!(
        matches!(err, MemoryError::Storage(ref m) if m.contains("another schema")),
        "{err}"
    );
    let conn = Connection::open(&foreign).unwrap();
    let has_memory: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE name = 'memory'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(has_memory, 0, "nothing was created in the foreign database");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_store_file_also_holds_long_term_memory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    {
        let store = SqliteStore::open(&path).await.unwrap();
        use agcore_memory::MemoryStore;
        store
            .save(agcore_memory::MemoryItem::new("note:1", "kept"))
            .await
            .unwrap();
    }
    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    let alice = memory.scope("assistant", "alice").unwrap();
    alice
        .save(NewMemory::new(MemoryType::User, "tea", "likes tea"))
        .await
        .unwrap();
    memory.close().await.unwrap();
    let store = SqliteStore::open(&path).await.unwrap();
    use agcore_memory::MemoryStore;
    assert_eq!(store.get("note:1").await.unwrap().unwrap().content, "kept");
    let memory = LongTermMemory::new(SqliteLongTerm::open(&path).await.unwrap());
    let alice = memory.scope("assistant", "alice").unwrap();
    assert_eq!(alice.search("tea", 3).await.unwrap().len(), 1);
}
