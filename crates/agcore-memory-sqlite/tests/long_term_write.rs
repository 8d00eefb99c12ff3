//! The write path on every backend: duplicates update in place, supersede and
//! delete keep history, closed stores fail cleanly. Facts and the dialogue
//! buffer are in `long_term_extraction.rs`, search filters in
//! `long_term_search.rs`.
#![cfg(test)]

use crate::long_term_support;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{HistoryReason, ListRequest, MemoryType, MemoryUpdate, NewMemory};
use long_term_support::backends;

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
