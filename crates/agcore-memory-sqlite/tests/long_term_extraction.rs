//! The extraction path on every backend: facts apply by confidence and
//! replace, the dialogue buffer keeps turns until applied.
#![cfg(test)]

use crate::long_term_support;

use agcore_agent::turn_memory::parse_facts;
use agcore_memory::long_term::{Fact, HistoryReason, MemoryType, NewMemory};
use long_term_support::backends;

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
 {"content": "Lives in Munich", "type": "user", "tags": ["location"], "confidence": 0.9, "replace": OLD},
 {"content": "Works on the payment module", "type": "project", "confidence": 0.8, "replace": null},
 {"content": "Works nights", "type": "fact", "confidence": 0.8, "replace": 987654321},
 {"content": "Might like jazz", "type": "preference", "confidence": 0.3},
 {"content": "lives in munich", "confidence": 0.95},
 {"content": "", "confidence": 1}
]}
```"#;
        let reply = reply.replace("OLD", &old.id.to_string());
        let parsed = parse_facts(&reply).unwrap();
        assert_eq!(parsed.facts.len(), 5, "{name}: {:?}", parsed.rejected);
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
        assert_eq!(report.rejected.len(), 1, "{name}: a replace of no memory");
        assert!(report.rejected[0].contains("987654321"), "{name}");
        let now = m.get(old.id).await.unwrap().unwrap();
        assert_eq!(now.content, "lives in munich");
        assert_eq!(now.tags, vec!["location"]);
        assert_eq!(now.metadata["source"], "extraction");
        let h = m.history(old.id).await.unwrap();
        assert_eq!(h[0].content, "Lives in Berlin");
        assert_eq!(h[0].reason, HistoryReason::Supersede);
        let created = m.get(report.created[0]).await.unwrap().unwrap();
        assert!(created.metadata.get("fact_type").is_none(), "{name}");
        assert_eq!(created.memory_type, MemoryType::Project);
        // Replacing with text that already exists archives the old entry.
        let a = m
            .save(NewMemory::new(MemoryType::User, "", "Drinks coffee"))
            .await
            .unwrap()
            .entry;
        let facts = vec![
            Fact::new("Works on the payment module", MemoryType::Project, 1.0).replacing(a.id),
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
