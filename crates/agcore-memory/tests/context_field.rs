//! The stores' context field (`ContextField`, BM25F): `InMemoryStore` ranks
//! as `ContextualBm25` does with the same window and weight, its pruned
//! search equals its exhaustive reference, and the field follows saves,
//! replacements and deletions in any order.
#![cfg(test)]

use std::collections::HashMap;

use agcore_memory::retriever::{ContextField, ContextualBm25, ContextualBm25Config};
use agcore_memory::{
    InMemoryStore, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use agcore_memory_testkit::{at, turn};
use proptest::prelude::*;

fn ids(hits: &[ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

async fn search(store: &InMemoryStore, query: &str) -> Vec<ScoredItem> {
    store
        .search(query, &SearchOptions::top_k(1000))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_reply_is_found_through_the_question_before_it() {
    let store = InMemoryStore::new();
    store
        .save_many(vec![
            turn("a1", "s1", 1, "Did you finish the marathon in Boston?"),
            turn("a2", "s1", 2, "Yes, last Saturday! My legs still hurt."),
            turn("b1", "s2", 3, "I adopted a puppy named Oscar."),
            MemoryItem::new("note", "The user likes marathon training plans"),
        ])
        .await
        .unwrap();
    let hits = search(&store, "When did she run the marathon?").await;
    assert_eq!(ids(&hits)[..2], ["a1", "note"]);
    assert_eq!(ids(&hits)[2], "a2", "found through its context field");
    assert!(hits[2].score < hits[1].score);

    let plain = InMemoryStore::new().with_context_field(None);
    for item in store.list(&Default::default()).await.unwrap() {
        plain.save(item).await.unwrap();
    }
    assert_eq!(ids(&search(&plain, "marathon").await), ["a1", "note"]);
    // A store switched off later indexes its items again.
    let switched = store.with_context_field(None);
    assert_eq!(ids(&search(&switched, "marathon").await), ["a1", "note"]);
}

#[tokio::test]
async fn items_without_a_session_rank_as_plain_bm25() {
    let with = InMemoryStore::new();
    let without = InMemoryStore::new().with_context_field(None);
    let items: Vec<MemoryItem> = ["red apples", "green apples and pears", "pears", "apple pie"]
        .iter()
        .enumerate()
        .map(|(i, t)| MemoryItem::new(format!("n{i}"), *t))
        .collect();
    with.save_many(items.clone()).await.unwrap();
    without.save_many(items).await.unwrap();
    for q in ["apples", "pears apple", "green"] {
        let (a, b) = (search(&with, q).await, search(&without, q).await);
        assert_eq!(ids(&a), ids(&b));
        let scores = |h: &[ScoredItem]| h.iter().map(|h| h.score).collect::<Vec<_>>();
        assert_eq!(scores(&a), scores(&b), "bit for bit");
    }
}

#[tokio::test]
async fn the_field_follows_deletions_and_replacements() {
    let store = InMemoryStore::new();
    store
        .save_many(vec![
            turn("t1", "s", 1, "where is the violin"),
            turn("t2", "s", 2, "in the attic"),
            turn("t3", "s", 3, "thanks a lot"),
        ])
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "violin").await), ["t1", "t2"]);
    store.delete("t1").await.unwrap();
    assert!(search(&store, "violin").await.is_empty(), "t2 lost it");
    store
        .save(turn("t1", "s", 1, "where is the cello"))
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "cello").await), ["t1", "t2"]);
    assert!(search(&store, "violin").await.is_empty());
    // Moving t3 to another session takes it out of t2's context.
    assert_eq!(ids(&search(&store, "thanks").await), ["t3", "t2"]);
    store
        .save(turn("t3", "other", 3, "thanks a lot"))
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "thanks").await), ["t3"]);
}

#[tokio::test]
async fn chinese_turns_get_context_as_character_bigrams() {
    let store = InMemoryStore::new();
    store
        .save_many(vec![
            turn("z1", "会话", 1, "你去过长城吗"),
            turn("z2", "会话", 2, "去年夏天去过"),
            turn("z3", "别的", 3, "今天下雨"),
        ])
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "长城").await), ["z1", "z2"]);
    assert_eq!(ids(&search(&store, "夏天").await), ["z2", "z1"]);
}

const WORDS: &[&str] = &[
    "marathon", "boston", "puppy", "oscar", "painting", "sunset", "violin", "guitar", "camping",
    "lake", "adopted", "running", "shoes", "birthday", "cake", "记忆", "系统",
];

/// Turns as (session, second, word indexes), and the turns deleted.
type Corpus = (Vec<(usize, i64, Vec<usize>)>, Vec<usize>);

fn corpus() -> impl Strategy<Value = Corpus> {
    (
        prop::collection::vec(
            (
                0usize..3,
                0i64..40,
                prop::collection::vec(0..WORDS.len(), 0..6),
            ),
            1..30,
        ),
        prop::collection::vec(0usize..30, 0..8),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Whatever the order of saves and deletions, the store scores every
    /// item as `ContextualBm25` built on the items left does, and its
    /// pruned search returns what its exhaustive reference returns.
    #[test]
    fn store_ranks_like_contextual_bm25((turns, deletions) in corpus(), limit in 1usize..8) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let store = InMemoryStore::new().with_segment_size(4);
            let mut items = Vec::new();
            for (i, (session, seq, words)) in turns.iter().enumerate() {
                let text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
                items.push(turn(&format!("t{i:02}"), &format!("s{session}"), *seq, &text.join(" ")));
            }
            for item in items.iter().rev() {
                store.save(item.clone()).await.unwrap();
            }
            for &d in &deletions {
                store.delete(&format!("t{d:02}")).await.unwrap();
            }
            let left = store.list(&Default::default()).await.unwrap();
            let reference = ContextualBm25::new(left, ContextualBm25Config::default());
            for query in ["marathon boston", "puppy", "violin guitar lake", "记忆系统", "cake shoes"] {
                let expected: HashMap<String, f64> = reference
                    .search(query, 1000)
                    .into_iter()
                    .map(|h| (h.item.id, h.score))
                    .collect();
                let got = search(&store, query).await;
                prop_assert_eq!(got.len(), expected.len());
                for hit in &got {
                    let want = expected.get(&hit.item.id).copied().unwrap_or(f64::NAN);
                    prop_assert!((hit.score - want).abs() <= 1e-9 * want.abs().max(1.0));
                }
                let options = SearchOptions::top_k(limit);
                let pruned = store.search(query, &options).await.unwrap();
                let exhaustive = store.exhaustive_search(query, &options).await.unwrap();
                prop_assert_eq!(ids(&pruned), ids(&exhaustive));
                for (a, b) in pruned.iter().zip(&exhaustive) {
                    prop_assert_eq!(a.score, b.score);
                }
            }
            Ok(())
        })?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// A filter naming one session (read from the session index) lists what
    /// the same filter lists in a store without the context field (a scan
    /// of every item), in the same order, whatever else it asks for.
    #[test]
    fn listing_a_session_equals_scanning_everything(
        (turns, deletions) in corpus(),
        session in 0usize..4,
        numeric in any::<bool>(),
        prefix in prop::option::of(0usize..3),
        since in prop::option::of(0i64..40),
        limit in prop::option::of(1usize..6),
    ) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let indexed = InMemoryStore::new();
            let scanned = InMemoryStore::new().with_context_field(None);
            for (i, (s, seq, words)) in turns.iter().enumerate() {
                let text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
                let mut item = turn(&format!("t{i:02}"), &format!("s{s}"), *seq, &text.join(" "));
                if i % 3 == 0 {
                    // Some sessions named by numbers: 1 and "1" are different sessions.
                    item.metadata = serde_json::json!({ "session": s });
                }
                indexed.save(item.clone()).await.unwrap();
                scanned.save(item).await.unwrap();
            }
            for &d in &deletions {
                indexed.delete(&format!("t{d:02}")).await.unwrap();
                scanned.delete(&format!("t{d:02}")).await.unwrap();
            }
            let value = if numeric {
                serde_json::json!(session)
            } else {
                serde_json::json!(format!("s{session}"))
            };
            let mut filter = MemoryFilter::default().metadata_eq("session", value);
            filter.prefix = prefix.map(|p| format!("t{p}"));
            filter.since = since.map(at);
            filter.limit = limit;
            let a = indexed.list(&filter).await.unwrap();
            let b = scanned.list(&filter).await.unwrap();
            prop_assert_eq!(&a, &b);
            prop_assert_eq!(
                indexed.count(&filter).await.unwrap(),
                scanned.count(&filter).await.unwrap()
            );
            Ok(())
        })?;
    }
}

#[test]
fn context_field_defaults_are_the_contextual_bm25_constants() {
    let field = ContextField::default();
    let contextual = ContextualBm25Config::default();
    assert_eq!(field.window, contextual.context_window);
    assert_eq!(field.weight, contextual.context_weight);
    assert_eq!(Some(field.group_key), contextual.group_key);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_store_passes_the_context_conformance_suite() {
    let report = agcore_memory_testkit::context::context_conformance_report(
        |field: Option<ContextField>, eviction: agcore_memory::EvictionConfig| async move {
            std::sync::Arc::new(InMemoryStore::with_eviction(eviction).with_context_field(field))
                as std::sync::Arc<dyn MemoryStore>
        },
    )
    .await;
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed.len(), 7);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_ignoring_the_field_fails_the_context_suite() {
    let report = agcore_memory_testkit::context::context_conformance_report(
        |_field: Option<ContextField>, eviction: agcore_memory::EvictionConfig| async move {
            std::sync::Arc::new(InMemoryStore::with_eviction(eviction).with_context_field(None))
                as std::sync::Arc<dyn MemoryStore>
        },
    )
    .await;
    let failed: Vec<&str> = report.failed.iter().map(|f| f.0).collect();
    assert!(
        failed.contains(&"context.reply_through_question"),
        "{report}"
    );
    assert!(failed.contains(&"context.random_writes"), "{report}");
    assert!(report.passed.contains(&"context.plain_items"), "{report}");
}
