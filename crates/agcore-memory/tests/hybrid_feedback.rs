//! Rocchio pseudo-relevance feedback (`DenseFeedback`, off by default): the
//! dense list is searched again from the query moved towards the first
//! ranking's best results, so a memory sharing nothing with the query but
//! much with its best match is found; without stored vectors, or with a
//! vector of a text the memory no longer holds, nothing changes.
#![cfg(test)]

use agcore_memory::hybrid::{DenseFeedback, HybridConfig, HybridStore, RetrievalMode};
use agcore_memory::vector::VectorRecord;
use agcore_memory::{MemoryItem, SearchOptions};

use crate::support;

/// "a" matches the query's words; "b" shares none of them, only the words
/// of "a" (`TermHashing` vectors are bags of words, so its cosine to the
/// query is 0 and the first dense list cuts it).
fn memories() -> Vec<MemoryItem> {
    vec![
        MemoryItem::new("a", "Brighton weekend: kids swam, pier lights, fish chips"),
        MemoryItem::new("b", "The kids loved the pier lights and the fish chips"),
        MemoryItem::new("c", "Quarterly budget review moved to Thursday"),
        MemoryItem::new("d", "Renew the car insurance before March"),
    ]
}

async fn store(config: HybridConfig) -> HybridStore {
    support::term_hashing_store(config, memories()).await
}

const QUERY: &str = "Brighton weekend";

async fn result_ids(store: &HybridStore) -> Vec<String> {
    store
        .search_explained(QUERY, &SearchOptions::top_k(4))
        .await
        .unwrap()
        .into_results()
        .map(|h| h.item.id)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_finds_what_the_best_match_talks_about() {
    for mode in [RetrievalMode::Hybrid, RetrievalMode::Dense] {
        let off = store(HybridConfig::default().with_mode(mode)).await;
        let ids = result_ids(&off).await;
        assert_eq!(ids, ["a"], "{mode:?} without feedback: {ids:?}");

        let config = HybridConfig::default()
            .with_mode(mode)
            .with_feedback(Some(DenseFeedback::default().with_depth(1)));
        let on = store(config).await;
        let report = on
            .search_explained(QUERY, &SearchOptions::top_k(4))
            .await
            .unwrap();
        let ids: Vec<&str> = report.results().map(|h| h.item.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"], "{mode:?} with feedback: {ids:?}");
        assert_eq!(report.feedback_vectors, 1, "a's vector moved the query");
        let b = report.results().nth(1).unwrap();
        let dense = b.breakdown.dense.as_ref().map(|d| d.score);
        assert!(
            dense.is_some_and(|s| s > 0.0),
            "b's dense score is its similarity to the moved query: {dense:?}"
        );
        assert!(b.breakdown.lexical.is_none(), "{:?}", b.breakdown);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn feedback_without_stored_vectors_keeps_the_first_ranking() {
    let config = HybridConfig::default().with_feedback(Some(DenseFeedback::default()));
    // A lexical search (no dense list to move) and a store whose vectors
    // may not be written yet both answer by words.
    let lexical = store(config.clone().with_mode(RetrievalMode::Lexical)).await;
    assert_eq!(result_ids(&lexical).await, ["a"]);
    // The best match's vector is gone (not written yet, or deleted): the
    // query cannot move, and the first ranking stands.
    let missing = store(config).await;
    let vectors = missing.dense().unwrap().vectors();
    assert_eq!(vectors.delete("", &["a".to_owned()]).await.unwrap(), 1);
    assert_eq!(result_ids(&missing).await, ["a"]);
    let report = missing
        .search_explained(QUERY, &SearchOptions::top_k(4))
        .await
        .unwrap();
    assert_eq!(report.feedback_vectors, 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_vector_of_an_older_text_never_moves_the_query() {
    let config =
        HybridConfig::default().with_feedback(Some(DenseFeedback::default().with_depth(1)));
    let stale = store(config).await;
    let vectors = stale.dense().unwrap().vectors();
    // a's vector as it would be after an edit the queue has not embedded
    // yet: the vector of b's text, recorded with the hash of that text.
    let old = vectors
        .vectors("", &["b".to_owned()])
        .await
        .unwrap()
        .pop()
        .flatten()
        .unwrap();
    let record = VectorRecord::new("", "a", old, "hash of a text a no longer holds");
    vectors.upsert(vec![record]).await.unwrap();
    let report = stale
        .search_explained(QUERY, &SearchOptions::top_k(4))
        .await
        .unwrap();
    assert_eq!(report.feedback_vectors, 0, "the stale vector is skipped");
    let ids: Vec<&str> = report.results().map(|h| h.item.id.as_str()).collect();
    assert_eq!(ids, ["a"]);
}

#[test]
fn feedback_is_off_by_default_and_reads_from_a_table() {
    assert_eq!(HybridConfig::default().feedback, None);
    let config: HybridConfig = toml::from_str("[feedback]\ndepth = 3").unwrap();
    let feedback = config.feedback.unwrap();
    assert_eq!(
        (feedback.depth, feedback.alpha, feedback.beta),
        (3, 0.4, 0.6)
    );
    assert!(toml::from_str::<HybridConfig>("[feedback]\ndepht = 3").is_err());
}
