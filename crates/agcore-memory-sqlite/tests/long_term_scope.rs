//! Scope isolation: another agent's or user's handle, given the victim's ids,
//! texts and session ids, sees nothing and changes nothing — on every backend.
#![cfg(test)]

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    ArchivedFilter, Fact, InMemoryLongTerm, ListRequest, LongTermMemory, MemoryEntry, MemoryType,
    MemoryUpdate, NewMemory, ScopedMemory, SearchRequest,
};
use agcore_memory_sqlite::SqliteLongTerm;

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

const TEXTS: [&str; 3] = [
    "Alice prefers green tea in the afternoon",
    "用户偏好简洁直接的回答风格",
    "The payment module refactor is due on 2026-04-15",
];

/// Everything observable about a scope.
async fn snapshot(m: &ScopedMemory, ids: &[i64]) -> (Vec<MemoryEntry>, Vec<String>, usize) {
    let mut all = m
        .list(
            &ListRequest::all()
                .limit(1000)
                .order(agcore_memory::long_term::ListOrder::Created),
        )
        .await
        .unwrap();
    all.extend(m.archived().await.unwrap());
    let mut history = Vec::new();
    let mut usage = 0;
    for id in ids {
        history.extend(m.history(*id).await.unwrap().into_iter().map(|h| h.content));
        usage += m.usage_log(*id).await.unwrap().len();
    }
    let pending = m.buffer_pending("s-alice", 100).await.unwrap();
    history.extend(pending.into_iter().map(|t| t.user_query));
    (all, history, usage)
}

async fn attack(name: &str, victim: &ScopedMemory, attacker: &ScopedMemory, ids: &[i64]) {
    let ctx = format!(
        "{name}: {:?} against {:?}",
        attacker.scope(),
        victim.scope()
    );
    for &id in ids {
        assert!(attacker.get(id).await.unwrap().is_none(), "{ctx}: get {id}");
        assert!(
            attacker.history(id).await.unwrap().is_empty(),
            "{ctx}: history"
        );
        assert!(
            attacker.usage_log(id).await.unwrap().is_empty(),
            "{ctx}: usage log"
        );
        let err = attacker
            .update(id, MemoryUpdate::new().content("pwned"))
            .await
            .unwrap_err();
        assert!(
            matches!(err, MemoryError::NotFound(_)),
            "{ctx}: update gave {err}"
        );
        let err = attacker.supersede(id, "pwned").await.unwrap_err();
        assert!(
            matches!(err, MemoryError::NotFound(_)),
            "{ctx}: supersede gave {err}"
        );
        let err = attacker.restore(id).await.unwrap_err();
        assert!(
            matches!(err, MemoryError::NotFound(_)),
            "{ctx}: restore gave {err}"
        );
        assert!(!attacker.delete(id).await.unwrap(), "{ctx}: delete {id}");
    }
    assert_eq!(
        attacker
            .record_use("s-alice", "x", ids, true)
            .await
            .unwrap(),
        0,
        "{ctx}"
    );
    assert_eq!(
        attacker
            .record_use("s-alice", "x", ids, false)
            .await
            .unwrap(),
        0,
        "{ctx}"
    );
    for text in TEXTS {
        let any = SearchRequest::top_k(50).archived(ArchivedFilter::Include);
        assert!(
            attacker.search_with(text, &any).await.unwrap().is_empty(),
            "{ctx}: search {text}"
        );
        assert!(
            attacker.find_by_content(text).await.unwrap().is_none(),
            "{ctx}: find"
        );
    }
    assert!(
        attacker.list(&ListRequest::all()).await.unwrap().is_empty(),
        "{ctx}: list"
    );
    assert!(attacker.core().await.unwrap().is_empty(), "{ctx}: core");
    assert!(
        attacker.archived().await.unwrap().is_empty(),
        "{ctx}: archived"
    );
    assert_eq!(
        attacker.archive_below(1e9).await.unwrap(),
        0,
        "{ctx}: archive"
    );
    let report = attacker.maintenance().await.unwrap();
    assert_eq!(
        (report.archived, report.active),
        (0, 0),
        "{ctx}: maintenance"
    );
    assert!(
        attacker
            .buffer_pending("s-alice", 100)
            .await
            .unwrap()
            .is_empty(),
        "{ctx}: buffer"
    );
    assert_eq!(
        attacker
            .buffer_mark_applied("s-alice", i64::MAX)
            .await
            .unwrap(),
        0,
        "{ctx}"
    );
    // Facts naming the victim's ids are refused and touch nothing.
    let facts = vec![Fact::new("Alice hates tea now", MemoryType::User, 1.0).replacing(ids[0])];
    let report = attacker.apply_facts(facts, 0.5).await.unwrap();
    assert!(report.superseded.is_empty(), "{ctx}: supersede by fact");
    assert!(report.created.is_empty(), "{ctx}");
    assert_eq!(report.rejected.len(), 1, "{ctx}: {:?}", report.rejected);
    // Saving the victim's exact text creates the attacker's own entry.
    let own = attacker
        .save(NewMemory::new(MemoryType::User, "t", TEXTS[0]))
        .await
        .unwrap();
    assert!(own.created, "{ctx}: save merged into another scope");
    assert!(!ids.contains(&own.entry.id), "{ctx}");
    assert_eq!(
        attacker.list(&ListRequest::all()).await.unwrap().len(),
        1,
        "{ctx}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn no_api_crosses_a_scope() {
    for (name, memory, _dir) in backends().await {
        let victim = memory.scope("assistant", "alice").unwrap();
        let mut ids = Vec::new();
        for (i, text) in TEXTS.iter().enumerate() {
            let e = victim
                .save(NewMemory::new(MemoryType::ALL[i], format!("m{i}"), *text).with_tags(["t"]))
                .await
                .unwrap()
                .entry;
            ids.push(e.id);
        }
        victim
            .supersede(ids[2], "The payment module refactor is due on 2026-04-20")
            .await
            .unwrap();
        victim
            .record_use("s-alice", "tea", &ids[..1], true)
            .await
            .unwrap();
        victim
            .update(ids[1], MemoryUpdate::new().archived(true))
            .await
            .unwrap();
        victim
            .buffer_append("s-alice", "I like tea", "Noted")
            .await
            .unwrap();
        let before = snapshot(&victim, &ids).await;
        assert_eq!(before.0.len(), 3, "{name}");

        // A padded look-alike of the victim's id is refused, not a scope.
        assert!(memory.scope("assistant", "alice ").is_err(), "{name}");
        let attackers = [
            memory.scope("assistant", "bob").unwrap(),
            memory.scope("other-agent", "alice").unwrap(),
            memory.scope("assistant", "Alice").unwrap(),
            memory.scope("assistant' OR '1'='1", "alice\" --").unwrap(),
            memory.scope("assistantalice", "x").unwrap(),
        ];
        for attacker in &attackers {
            attack(name, &victim, attacker, &ids).await;
        }
        let after = snapshot(&victim, &ids).await;
        assert_eq!(before, after, "{name}: the victim's scope changed");
        let hits = victim.search("green tea", 5).await.unwrap();
        assert_eq!(hits.len(), 1, "{name}");
        assert_eq!(hits[0].entry.id, ids[0]);
        let mut scopes = memory.scopes().await.unwrap();
        scopes.dedup();
        assert_eq!(scopes.len(), 1 + attackers.len(), "{name}: {scopes:?}");
        memory.close().await.unwrap();
    }
}

#[tokio::test]
async fn bad_scopes_are_refused() {
    let memory = LongTermMemory::new(InMemoryLongTerm::new());
    for (agent, user) in [
        ("", "u"),
        ("a", "  "),
        ("a\n", "u"),
        ("a", &"x".repeat(300)),
    ] {
        let err = memory.scope(agent, user).unwrap_err();
        assert!(
            matches!(err, MemoryError::InvalidInput(_)),
            "{agent:?}/{user:?}"
        );
    }
}
