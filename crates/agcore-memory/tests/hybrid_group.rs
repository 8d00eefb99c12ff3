//! Group evidence (`GroupEvidence`, off by default): after fusion, the turns
//! of the session holding most of the evidence rise together; the breakdown
//! shows what each candidate gained; lexical searches and memories without a
//! session are untouched.
#![cfg(test)]

use agcore_memory::hybrid::{GroupEvidence, HybridConfig, HybridStore, RetrievalMode};
use agcore_memory::{MemoryItem, SearchOptions};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::json;

use crate::support;

fn turn(id: &str, session: Option<&str>, seq: i64, text: &str) -> MemoryItem {
    let item = MemoryItem::new(id, text)
        .with_created_at(DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(seq));
    match session {
        Some(s) => item.with_metadata(json!({ "session": s })),
        None => item,
    }
}

/// One turn of session "trip" ("t1") is the best single match of the query's
/// words; session "garden" talks about them over several turns, one of which
/// ("g2") is the answer, second by its fused score alone.
fn turns() -> Vec<MemoryItem> {
    vec![
        turn("t1", Some("trip"), 1, "Tomatoes at the market on our trip"),
        turn("t2", Some("trip"), 2, "The hotel had a pool"),
        turn("t3", Some("trip"), 3, "We flew home on Sunday"),
        turn("g1", Some("garden"), 10, "My tomatoes are finally growing"),
        turn("g2", Some("garden"), 11, "I planted tomatoes in May"),
        turn(
            "g3",
            Some("garden"),
            12,
            "The basil needs more sun than the tomatoes",
        ),
        turn(
            "g4",
            Some("garden"),
            13,
            "Garden beds built from old pallets",
        ),
        turn("x1", None, 20, "Tomatoes and basil salad recipe"),
    ]
}

async fn store(config: HybridConfig) -> HybridStore {
    support::term_hashing_store(config, turns()).await
}

const QUERY: &str = "when were the tomatoes planted at the market";

fn position(ids: &[String], id: &str) -> usize {
    ids.iter()
        .position(|i| i == id)
        .unwrap_or_else(|| panic!("{id} not in {ids:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_with_most_evidence_rises_and_the_breakdown_says_why() {
    let on =
        store(HybridConfig::default().with_group_evidence(Some(GroupEvidence::default()))).await;
    let off = store(HybridConfig::default()).await;
    let options = SearchOptions::top_k(8);
    let with = on.search_explained(QUERY, &options).await.unwrap();
    let without = off.search_explained(QUERY, &options).await.unwrap();
    let ids = |r: &agcore_memory::hybrid::SearchReport| -> Vec<String> {
        r.results().map(|h| h.item.id.clone()).collect()
    };
    let (with_ids, without_ids) = (ids(&with), ids(&without));
    // The garden session holds most of the fused evidence: its answer moves up.
    assert!(
        position(&with_ids, "g2") < position(&without_ids, "g2"),
        "with {with_ids:?} without {without_ids:?}"
    );
    for hit in with.results() {
        let b = &hit.breakdown;
        assert!(
            (b.score - (b.fused + b.group) * b.decay).abs() < 1e-12,
            "{b:?}"
        );
        if hit.item.metadata.get("session").is_none() {
            assert_eq!(b.group, 0.0, "no session, no evidence: {b:?}");
        } else {
            assert!(b.group > 0.0, "{}: {b:?}", hit.item.id);
        }
    }
    let group_of = |id: &str| {
        with.results()
            .find(|h| h.item.id == id)
            .map(|h| h.breakdown.group)
            .unwrap()
    };
    assert_eq!(group_of("g1"), group_of("g2"), "one value per session");
    assert!(group_of("g2") > group_of("t1"));
    // The fused scores themselves are the same with and without.
    for hit in without.results() {
        assert_eq!(hit.breakdown.group, 0.0);
        let other = with.results().find(|h| h.item.id == hit.item.id).unwrap();
        assert!((other.breakdown.fused - hit.breakdown.fused).abs() < 1e-12);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lexical_searches_stay_the_inner_stores_ranking() {
    let on = store(
        HybridConfig::default()
            .with_mode(RetrievalMode::Lexical)
            .with_group_evidence(Some(GroupEvidence::default())),
    )
    .await;
    let report = on
        .search_explained(QUERY, &SearchOptions::top_k(8))
        .await
        .unwrap();
    assert!(report.results().count() > 3);
    assert!(report.results().all(|h| h.breakdown.group == 0.0));
    let inner: Vec<String> = on
        .inner()
        .search(QUERY, &SearchOptions::top_k(8))
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.item.id)
        .collect();
    let hybrid: Vec<String> = report.results().map(|h| h.item.id.clone()).collect();
    assert_eq!(hybrid, inner);
}

#[test]
fn group_evidence_is_off_by_default() {
    assert_eq!(HybridConfig::default().group_evidence, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_group_key_and_weight_are_honoured() {
    let config = HybridConfig::default()
        .with_group_evidence(Some(GroupEvidence::default().with_group_key("thread")));
    let by_thread = store(config).await;
    let report = by_thread
        .search_explained(QUERY, &SearchOptions::top_k(8))
        .await
        .unwrap();
    assert!(
        report.results().all(|h| h.breakdown.group == 0.0),
        "no memory has a `thread`"
    );
    let half = store(
        HybridConfig::default()
            .with_group_evidence(Some(GroupEvidence::default().with_weight(0.25))),
    )
    .await;
    let full =
        store(HybridConfig::default().with_group_evidence(Some(GroupEvidence::default()))).await;
    let g = |r: &agcore_memory::hybrid::SearchReport| {
        r.results()
            .find(|h| h.item.id == "g2")
            .map(|h| h.breakdown.group)
            .unwrap()
    };
    let options = SearchOptions::top_k(8);
    let (a, b) = (
        half.search_explained(QUERY, &options).await.unwrap(),
        full.search_explained(QUERY, &options).await.unwrap(),
    );
    assert!((g(&a) * 2.0 - g(&b)).abs() < 1e-12, "{} {}", g(&a), g(&b));
}
