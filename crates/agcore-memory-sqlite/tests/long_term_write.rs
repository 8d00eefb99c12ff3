//! The write path on every backend: duplicates update in place, supersede and
//! delete keep history, facts apply by confidence, the dialogue buffer keeps
//! turns until applied, search honours type and archive filters.
#![cfg(test)]

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    ArchivedFilter, Fact, HistoryReason, InMemoryLongTerm, ListRequest, LongTermMemory, MemoryType,
    MemoryUpdate, NewMemory, SearchRequest, parse_facts,
};
use agcore_memory_sqlite::SqliteLongTerm;

async fn backends() -> Vec<(&'static str, LongTermMemory)> {
    vec![
        ("in-memory", LongTermMemory::new(InMemoryLongTerm::new())),
        (
            "sqlite",
            LongTermMemory::new(SqliteLongTerm::open_in_memory().await.unwrap()),
        ),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn duplicates_update_the_existing_entry() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let mut meta = serde_json::Map::new();
        meta.insert("a".into(), 1.into());
        let first = m
            .save(
                NewMemory::new(MemoryType::User, "tea", "Likes  green tea")
                    .with_tags(["Drink"])
                    .with_metadata(meta),
            )
            .await
            .unwrap();
        assert!(first.created, "{name}");
        let mut meta = serde_json::Map::new();
        meta.insert("b".into(), 2.into());
        let second = m
            .save(
                NewMemory::new(MemoryType::Feedback, "tea again", "  likes GREEN\ttea ")
                    .with_tags(["tea", "drink"])
                    .with_metadata(meta)
                    .with_weight(3.0),
            )
            .await
            .unwrap();
        assert!(!second.created, "{name}");
        assert_eq!(second.entry.id, first.entry.id);
        assert_eq!(second.entry.tags, vec!["drink", "tea"]);
        assert_eq!(second.entry.memory_type, MemoryType::Feedback);
        assert_eq!(second.entry.weight, 3.0);
        assert_eq!(second.entry.metadata.len(), 2, "{name}: metadata merged");
        assert_eq!(
            m.list(&ListRequest::all()).await.unwrap().len(),
            1,
            "{name}"
        );
        assert_eq!(
            m.get(first.entry.id).await.unwrap().unwrap(),
            second.entry,
            "{name}: stored as returned"
        );
        // Different text is a different memory; Chinese keys too.
        m.save(NewMemory::new(MemoryType::User, "", "Likes black tea"))
            .await
            .unwrap();
        let zh = m
            .save(NewMemory::new(MemoryType::User, "", "喜欢 绿茶"))
            .await
            .unwrap();
        let zh2 = m
            .save(NewMemory::new(MemoryType::User, "", " 喜欢  绿茶 "))
            .await
            .unwrap();
        assert_eq!(zh.entry.id, zh2.entry.id, "{name}");
        assert_eq!(zh.entry.name, "喜欢 绿茶", "{name}: derived title");
        assert_eq!(
            m.list(&ListRequest::all()).await.unwrap().len(),
            3,
            "{name}"
        );
        // Saving archived text restores it.
        m.update(zh.entry.id, MemoryUpdate::new().archived(true))
            .await
            .unwrap();
        let again = m
            .save(NewMemory::new(MemoryType::User, "", "喜欢 绿茶"))
            .await
            .unwrap();
        assert!(!again.created && !again.entry.archived, "{name}");
        // Invalid input changes nothing.
        assert!(matches!(
            m.save(NewMemory::new(MemoryType::User, "x", " \n ")).await,
            Err(MemoryError::InvalidInput(_))
        ));
        assert!(matches!(
            m.update(zh.entry.id, MemoryUpdate::new().content("")).await,
            Err(MemoryError::InvalidInput(_))
        ));
        assert_eq!(
            m.get(zh.entry.id).await.unwrap().unwrap().content,
            "喜欢 绿茶"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn supersede_update_and_delete_keep_history() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let e = m
            .save(NewMemory::new(
                MemoryType::Project,
                "deadline",
                "Due on April 15",
            ))
            .await
            .unwrap()
            .entry;
        let other = m
            .save(NewMemory::new(MemoryType::Project, "x", "Other text"))
            .await
            .unwrap()
            .entry;
        let s = m.supersede(e.id, "Due on April 20").await.unwrap();
        assert_eq!(s.content, "Due on April 20");
        m.update(
            e.id,
            MemoryUpdate::new()
                .content("Due on April 22")
                .description("moved twice"),
        )
        .await
        .unwrap();
        // Metadata-only updates write no history.
        m.update(e.id, MemoryUpdate::new().tags(["sprint"]))
            .await
            .unwrap();
        // Content clashing with another entry is refused, nothing changes.
        let err = m
            .update(e.id, MemoryUpdate::new().content("other  TEXT"))
            .await
            .unwrap_err();
        assert!(
            matches!(err, MemoryError::AlreadyExists(_)),
            "{name}: {err}"
        );
        assert_eq!(
            m.get(e.id).await.unwrap().unwrap().content,
            "Due on April 22"
        );
        let h = m.history(e.id).await.unwrap();
        let texts: Vec<_> = h.iter().map(|h| (h.content.as_str(), h.reason)).collect();
        assert_eq!(
            texts,
            vec![
                ("Due on April 15", HistoryReason::Supersede),
                ("Due on April 20", HistoryReason::Update)
            ],
            "{name}"
        );
        // Old text is searchable only as history: search sees the current text.
        assert!(
            m.search("April 15", 5)
                .await
                .unwrap()
                .iter()
                .all(|h| h.entry.content != "Due on April 15")
        );
        assert!(m.delete(other.id).await.unwrap());
        assert!(!m.delete(other.id).await.unwrap(), "{name}: second delete");
        assert!(m.get(other.id).await.unwrap().is_none());
        let h = m.history(other.id).await.unwrap();
        assert_eq!(h.len(), 1);
        assert_eq!(
            (h[0].content.as_str(), h[0].reason),
            ("Other text", HistoryReason::Delete)
        );
        // The freed text can be saved again as a new entry.
        assert!(
            m.save(NewMemory::new(MemoryType::Project, "x", "Other text"))
                .await
                .unwrap()
                .created
        );
        let err = m
            .update(999_999, MemoryUpdate::new().name("n"))
            .await
            .unwrap_err();
        assert!(
            err.is_recoverable() && matches!(err, MemoryError::NotFound(_)),
            "{name}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn facts_apply_by_confidence_and_replace() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let old = m
            .save(NewMemory::new(MemoryType::User, "city", "Lives in Berlin"))
            .await
            .unwrap()
            .entry;
        let reply = r#"```json
{"facts": [
 {"content": "Lives in Munich", "type": "user", "tags": ["location"], "confidence": 0.9, "replace": "lives in  berlin"},
 {"content": "Works on the payment module", "type": "project", "confidence": 0.8, "replace": "something never stored"},
 {"content": "Might like jazz", "type": "preference", "confidence": 0.3},
 {"content": "lives in munich", "confidence": 0.95},
 {"content": "", "confidence": 1}
]}
```"#;
        let parsed = parse_facts(reply).unwrap();
        assert_eq!(parsed.facts.len(), 4, "{name}: {:?}", parsed.rejected);
        assert_eq!(parsed.rejected.len(), 1);
        let report = m.apply_facts(parsed.facts, 0.7).await.unwrap();
        assert_eq!(report.superseded, vec![old.id], "{name}");
        assert_eq!(report.created.len(), 1, "{name}");
        assert_eq!(
            report.updated,
            vec![old.id],
            "{name}: duplicate fact merged"
        );
        assert_eq!(report.below_confidence, 1);
        let now = m.get(old.id).await.unwrap().unwrap();
        assert_eq!(now.content, "lives in munich");
        assert_eq!(now.tags, vec!["location"]);
        assert_eq!(now.metadata["source"], "extraction");
        let h = m.history(old.id).await.unwrap();
        assert_eq!(h[0].content, "Lives in Berlin");
        assert_eq!(h[0].reason, HistoryReason::Supersede);
        let created = m.get(report.created[0]).await.unwrap().unwrap();
        assert_eq!(created.metadata["replaces"], "something never stored");
        assert_eq!(created.memory_type, MemoryType::Project);
        // Replacing with text that already exists archives the old entry.
        let a = m
            .save(NewMemory::new(MemoryType::User, "", "Drinks coffee"))
            .await
            .unwrap()
            .entry;
        let facts = vec![
            Fact::new("Works on the payment module", MemoryType::Project, 1.0)
                .replacing("drinks coffee"),
        ];
        let r = m.apply_facts(facts, 0.5).await.unwrap();
        assert_eq!(r.superseded, vec![a.id], "{name}");
        assert!(
            m.get(a.id).await.unwrap().unwrap().archived,
            "{name}: archived, not deleted"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn dialogue_buffer_keeps_turns_until_applied() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let mut last = 0;
        for i in 0..5 {
            last = m
                .buffer_append("s1", &format!("question {i}"), &format!("answer {i}"))
                .await
                .unwrap()
                .id;
        }
        m.buffer_append("s2", "other session", "ok").await.unwrap();
        let pending = m.buffer_pending("s1", 3).await.unwrap();
        assert_eq!(
            pending
                .iter()
                .map(|t| t.user_query.as_str())
                .collect::<Vec<_>>(),
            ["question 0", "question 1", "question 2"],
            "{name}"
        );
        // A failed extraction marks nothing: everything is still pending.
        assert_eq!(m.buffer_pending("s1", 10).await.unwrap().len(), 5);
        assert_eq!(
            m.buffer_mark_applied("s1", pending[2].id).await.unwrap(),
            3,
            "{name}"
        );
        assert_eq!(m.buffer_pending("s1", 10).await.unwrap().len(), 2);
        assert_eq!(m.buffer_mark_applied("s1", last).await.unwrap(), 2);
        assert!(m.buffer_pending("s1", 10).await.unwrap().is_empty());
        assert_eq!(
            m.buffer_pending("s2", 10).await.unwrap().len(),
            1,
            "{name}: other session untouched"
        );
        // Applied turns are purged by maintenance only after the retention.
        assert_eq!(m.maintenance().await.unwrap().buffer_purged, 0, "{name}");
        let purge_now = memory
            .clone()
            .with_buffer_retention(chrono::Duration::seconds(-1));
        let p = purge_now.scope("agent", "u1").unwrap();
        assert_eq!(p.maintenance().await.unwrap().buffer_purged, 5, "{name}");
        assert_eq!(
            p.buffer_pending("s2", 10).await.unwrap().len(),
            1,
            "{name}: pending never purged"
        );
        assert!(m.buffer_append(" ", "q", "a").await.is_err());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn search_ranks_filters_and_handles_cjk() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        let style = m
            .save(NewMemory::new(
                MemoryType::User,
                "用户偏好-简洁风格",
                "用户偏好简洁直接的回答风格，不喜欢冗长的解释。",
            ))
            .await
            .unwrap()
            .entry;
        let sprint = m
            .save(
                NewMemory::new(
                    MemoryType::Project,
                    "当前冲刺目标",
                    "本周冲刺目标是完成支付模块重构",
                )
                .with_description("sprint goal"),
            )
            .await
            .unwrap()
            .entry;
        let fmt = m
            .save(NewMemory::new(
                MemoryType::Feedback,
                "no formatting",
                "Do not auto-format the user's code",
            ))
            .await
            .unwrap()
            .entry;
        assert_eq!(
            m.search("回答要简洁", 5).await.unwrap()[0].entry.id,
            style.id,
            "{name}"
        );
        assert_eq!(
            m.search("支付模块", 5).await.unwrap()[0].entry.id,
            sprint.id,
            "{name}"
        );
        assert_eq!(
            m.search("sprint", 5).await.unwrap()[0].entry.id,
            sprint.id,
            "{name}: description indexed"
        );
        assert_eq!(
            m.search("FORMAT code", 5).await.unwrap()[0].entry.id,
            fmt.id,
            "{name}"
        );
        let typed = SearchRequest::top_k(5).of_type(MemoryType::User);
        assert!(
            m.search_with("format code", &typed)
                .await
                .unwrap()
                .is_empty(),
            "{name}: type filter"
        );
        assert!(
            m.search("\"* OR NEAR( -- ;", 5).await.unwrap().is_empty(),
            "{name}: syntax is literal"
        );
        m.update(fmt.id, MemoryUpdate::new().archived(true))
            .await
            .unwrap();
        assert!(
            m.search("format code", 5).await.unwrap().is_empty(),
            "{name}: archived hidden"
        );
        let with = SearchRequest::top_k(5).archived(ArchivedFilter::Include);
        assert_eq!(
            m.search_with("format code", &with).await.unwrap().len(),
            1,
            "{name}"
        );
        assert!(m.search("支付", 0).await.unwrap().is_empty());
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn closed_stores_fail_cleanly() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        m.save(NewMemory::new(MemoryType::User, "", "xyz abc"))
            .await
            .unwrap();
        memory.close().await.unwrap();
        let err = m.search("xyz", 5).await.unwrap_err();
        assert!(matches!(err, MemoryError::Storage(_)), "{name}: {err}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn filters_find_entries_ranked_below_many_others() {
    for (name, memory) in backends().await {
        let m = memory.scope("agent", "u1").unwrap();
        // Another scope with many better matches must not crowd this one out.
        let other = memory.scope("agent", "u2").unwrap();
        for i in 0..60 {
            other
                .save(NewMemory::new(MemoryType::User, "", format!("alpha {i}")))
                .await
                .unwrap();
            m.save(NewMemory::new(
                MemoryType::Project,
                "",
                format!("alpha beta {i}"),
            ))
            .await
            .unwrap();
        }
        let user = m
            .save(NewMemory::new(
                MemoryType::User,
                "",
                "alpha with a much longer text around it so it ranks last",
            ))
            .await
            .unwrap()
            .entry;
        let typed = SearchRequest::top_k(1).of_type(MemoryType::User);
        let hits = m.search_with("alpha", &typed).await.unwrap();
        assert_eq!(hits.len(), 1, "{name}");
        assert_eq!(hits[0].entry.id, user.id, "{name}");
        let top = m.search("alpha", 10).await.unwrap();
        assert_eq!(top.len(), 10, "{name}");
        assert!(top.iter().all(|h| h.entry.user_id == "u1"), "{name}");
        assert!(
            top.windows(2).all(|w| w[0].score >= w[1].score),
            "{name}: best first"
        );
        for e in m
            .list(&ListRequest::all().of_type(MemoryType::Project))
            .await
            .unwrap()
        {
            m.update(e.id, MemoryUpdate::new().archived(true))
                .await
                .unwrap();
        }
        let hits = m.search("alpha", 3).await.unwrap();
        assert_eq!(
            hits.iter().map(|h| h.entry.id).collect::<Vec<_>>(),
            vec![user.id],
            "{name}"
        );
        let archived = SearchRequest::top_k(100).archived(ArchivedFilter::Only);
        assert_eq!(
            m.search_with("beta", &archived).await.unwrap().len(),
            60,
            "{name}"
        );
    }
}
