//! `ContextualBm25` and `Analyzer`: behaviour and properties (finite,
//! non-negative, order-independent scores; BM25 equivalence without context;
//! Chinese text; group boundaries; RM3).
#![cfg(test)]

use std::collections::HashMap;
use std::sync::Arc;

use agcore_memory::retriever::{
    Analyzer, Bm25, ContextualBm25, ContextualBm25Config, Rm3Config, Scorer, extract_keywords,
};
use agcore_memory::{InMemoryStore, MemoryFilter, MemoryItem, MemoryStore};
use chrono::{DateTime, TimeDelta, Utc};
use proptest::prelude::*;
use serde_json::json;

fn turn(id: &str, session: u32, seq: i64, text: &str) -> MemoryItem {
    MemoryItem::new(id, text)
        .with_metadata(json!({ "session": session }))
        .with_created_at(DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(seq))
}

fn ids(hits: &[agcore_memory::ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

#[test]
fn index_is_send_sync() {
    fn check<T: Send + Sync>() {}
    check::<ContextualBm25>();
    check::<ContextualBm25Config>();
    check::<Analyzer>();
}

#[test]
fn a_reply_is_found_through_the_question_before_it() {
    let items = vec![
        turn("a1", 1, 1, "Did you finish the marathon in Boston?"),
        turn("a2", 1, 2, "Yes, last Saturday! My legs still hurt."),
        turn("b1", 2, 3, "I bought new running shoes."),
    ];
    let index = ContextualBm25::new(items, ContextualBm25Config::default());
    let hits = index.search("marathon", 10);
    assert_eq!(ids(&hits), vec!["a1", "a2"]);
    assert!(hits[0].score > hits[1].score);
    // Context never crosses a group: b1 follows a2 in time but is another session.
    let hits = index.search("legs", 10);
    assert_eq!(ids(&hits), vec!["a2", "a1"]);
}

#[test]
fn without_a_group_key_the_timeline_is_one_sequence() {
    let items = vec![
        turn("a2", 1, 2, "Yes, last Saturday!"),
        turn("b1", 2, 3, "The marathon was long."),
    ];
    let config = ContextualBm25Config::default().with_group_key(None);
    let index = ContextualBm25::new(items, config);
    assert_eq!(ids(&index.search("marathon", 10)), vec!["b1", "a2"]);
}

#[test]
fn stemming_matches_inflections() {
    let items = vec![
        turn("m1", 1, 1, "She adopted two puppies."),
        turn("m2", 9, 2, "Nothing to see here."),
    ];
    let index = ContextualBm25::new(items, ContextualBm25Config::default());
    assert_eq!(ids(&index.search("adopting a puppy", 10)), vec!["m1"]);
    let plain = ContextualBm25Config::default().with_analyzer(Analyzer::keywords_only());
    let index = ContextualBm25::new(index.items().to_vec(), plain);
    assert!(index.search("adopting a puppy", 10).is_empty());
}

#[test]
fn chinese_text_is_searched_by_bigrams() {
    let items = vec![
        turn("z1", 1, 1, "用户喜欢简洁的回答"),
        turn("z2", 2, 2, "明天去北京出差"),
        turn("e1", 3, 3, "The user likes short answers"),
    ];
    let index = ContextualBm25::new(items, ContextualBm25Config::default());
    assert_eq!(ids(&index.search("北京出差", 10)), vec!["z2"]);
    assert_eq!(ids(&index.search("简洁回答", 10)), vec!["z1"]);
}

#[test]
fn empty_queries_and_k_zero_give_nothing() {
    let index = ContextualBm25::new(
        vec![turn("x", 1, 1, "some words")],
        ContextualBm25Config::default(),
    );
    assert!(index.search("", 10).is_empty());
    assert!(index.search("the a of", 10).is_empty());
    assert!(index.search("words", 0).is_empty());
    let empty = ContextualBm25::new(Vec::new(), ContextualBm25Config::default());
    assert!(empty.is_empty());
    assert!(empty.search("words", 5).is_empty());
}

#[test]
fn rm3_brings_in_documents_sharing_feedback_terms() {
    let items = vec![
        turn("p1", 1, 1, "pottery class clay vase glaze"),
        turn("p2", 2, 2, "clay vase glaze kiln firing"),
        turn("q1", 3, 3, "stock market news"),
    ];
    let base = ContextualBm25Config::default().with_context_window(0);
    let plain = ContextualBm25::new(items.clone(), base.clone());
    assert_eq!(ids(&plain.search("pottery", 10)), vec!["p1"]);
    let rm3 = ContextualBm25::new(items, base.with_rm3(Some(Rm3Config::new(1, 5, 0.5))));
    assert_eq!(ids(&rm3.search("pottery", 10)), vec!["p1", "p2"]);
}

#[tokio::test]
async fn from_store_indexes_one_namespace() {
    let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    store
        .save_many(vec![
            turn("conv-1:D1:1", 1, 1, "We adopted a cat"),
            turn("conv-2:D1:1", 1, 1, "We adopted a dog"),
        ])
        .await
        .unwrap();
    let index = ContextualBm25::from_store(
        store.as_ref(),
        &MemoryFilter::with_prefix("conv-2:"),
        ContextualBm25Config::default(),
    )
    .await
    .unwrap();
    assert_eq!(index.len(), 1);
    assert_eq!(ids(&index.search("adopt", 10)), vec!["conv-2:D1:1"]);
}

fn corpus() -> impl Strategy<Value = Vec<(u32, String)>> {
    prop::collection::vec(
        (
            0_u32..3,
            prop_oneof![
                "[a-f]{1,3}( [a-f]{1,3}){0,8}",
                "[\u{4e00}-\u{4e10}]{0,6}",
                any::<String>(),
            ],
        ),
        0..24,
    )
}

fn items_of(docs: &[(u32, String)]) -> Vec<MemoryItem> {
    docs.iter()
        .enumerate()
        .map(|(i, (s, text))| turn(&format!("d{i:03}"), *s, i64::try_from(i).unwrap(), text))
        .collect()
}

fn scores(index: &ContextualBm25, query: &str) -> HashMap<String, f64> {
    index
        .search(query, usize::MAX)
        .into_iter()
        .map(|h| (h.item.id, h.score))
        .collect()
}

fn config(rm3: bool, window: usize) -> ContextualBm25Config {
    let c = ContextualBm25Config::default().with_context_window(window);
    if rm3 {
        c.with_rm3(Some(Rm3Config::default()))
    } else {
        c
    }
}

proptest! {
    #[test]
    fn scores_are_finite_positive_and_sorted(docs in corpus(), query in "[a-f]{1,3}( [a-f]{1,3}){0,4}|[\u{4e00}-\u{4e10}]{2,4}|.{0,20}", rm3 in any::<bool>(), window in 0_usize..3) {
        let index = ContextualBm25::new(items_of(&docs), config(rm3, window));
        let hits = index.search(&query, 10);
        prop_assert!(hits.len() <= 10);
        for pair in hits.windows(2) {
            prop_assert!(pair[0].score >= pair[1].score);
        }
        for h in &hits {
            prop_assert!(h.score.is_finite() && h.score > 0.0, "{}", h.score);
        }
    }

    #[test]
    fn scores_do_not_depend_on_input_order(docs in corpus(), query in "[a-f]{1,3}( [a-f]{1,3}){0,4}", rm3 in any::<bool>(), seed in any::<u64>()) {
        let items = items_of(&docs);
        let mut shuffled = items.clone();
        // A deterministic permutation from the seed.
        let n = shuffled.len();
        for i in (1..n).rev() {
            let j = usize::try_from(seed.rotate_left(u32::try_from(i % 64).unwrap()) % (i as u64 + 1)).unwrap();
            shuffled.swap(i, j);
        }
        let a = scores(&ContextualBm25::new(items, config(rm3, 1)), &query);
        let b = scores(&ContextualBm25::new(shuffled, config(rm3, 1)), &query);
        prop_assert_eq!(a.len(), b.len());
        for (id, s) in &a {
            let t = b.get(id).copied().unwrap_or(f64::NAN);
            prop_assert!((s - t).abs() <= 1e-9 * s.abs().max(1.0), "{id}: {s} vs {t}");
        }
    }

    #[test]
    fn without_context_it_is_bm25_on_analysed_terms(docs in corpus(), query in "[a-f]{1,3}( [a-f]{1,3}){0,4}") {
        let items = items_of(&docs);
        let analyzer = Analyzer::english();
        let index = ContextualBm25::new(items.clone(), config(false, 0));
        let got = scores(&index, &query);
        let documents: Vec<Vec<String>> = items.iter().map(|i| analyzer.analyze_document(&i.content)).collect();
        let expected = Bm25::default().score_all(&analyzer.analyze(&query), &documents);
        for (item, e) in items.iter().zip(expected) {
            let g = got.get(&item.id).copied().unwrap_or(0.0);
            prop_assert!((g - e).abs() <= 1e-9 * e.abs().max(1.0), "{}: {g} vs {e}", item.id);
        }
    }

    #[test]
    fn analyzer_never_panics_and_keeps_cjk_bigrams(text in any::<String>()) {
        let stemmed = Analyzer::english().analyze(&text);
        let plain = extract_keywords(&text);
        prop_assert_eq!(stemmed.len(), plain.len());
        prop_assert_eq!(Analyzer::keywords_only().analyze(&text), plain.clone());
        for (s, p) in stemmed.iter().zip(&plain) {
            prop_assert!(!s.is_empty());
            if p.chars().any(agcore_memory::retriever::is_cjk) {
                prop_assert_eq!(s, p);
            }
        }
    }
}
