//! SQLite backend search and filters beyond the shared conformance suite:
//! index sync, BM25 order and ties, literal queries, prefix and metadata filters.
#![cfg(test)]

use agcore_memory::{MemoryError, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use serde_json::json;

fn ids(hits: &[agcore_memory::ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn upsert_reindexes_and_delete_unindexes() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    store
        .save(MemoryItem::new("a", "apples and pears"))
        .await
        .unwrap();
    store
        .save(MemoryItem::new("a", "bananas only"))
        .await
        .unwrap();
    assert!(
        store
            .search("apples", &SearchOptions::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(
        ids(&store
            .search("bananas", &SearchOptions::default())
            .await
            .unwrap()),
        ["a"]
    );
    store.delete("a").await.unwrap();
    assert!(
        store
            .search("bananas", &SearchOptions::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.count(&MemoryFilter::all()).await.unwrap(), 0);
    assert!(store.integrity_check().await.unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn ranking_follows_bm25_and_ties_break_by_id() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    store
        .save_many(vec![
            MemoryItem::new("d1", "tokio runtime tokio scheduler tokio"),
            MemoryItem::new(
                "d2",
                "tokio mentioned once among many other unrelated words here",
            ),
            MemoryItem::new("d3", "nothing relevant"),
            MemoryItem::new("z", "twin twin"),
            MemoryItem::new("m", "twin twin"),
        ])
        .await
        .unwrap();
    let hits = store
        .search("tokio", &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(ids(&hits), ["d1", "d2"]);
    assert!(hits[0].score > hits[1].score && hits[1].score > 0.0);
    assert_eq!(
        ids(&store
            .search("twin", &SearchOptions::default())
            .await
            .unwrap()),
        ["m", "z"]
    );
    let top1 = store
        .search("tokio", &SearchOptions::top_k(1))
        .await
        .unwrap();
    assert_eq!(ids(&top1), ["d1"]);
    let bar = SearchOptions::default().with_min_score(hits[0].score);
    assert_eq!(ids(&store.search("tokio", &bar).await.unwrap()), ["d1"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn fts_syntax_and_sql_in_queries_are_literal() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    let hostile = [
        "\"unbalanced quote",
        "col:umn AND OR NOT",
        "NEAR(a b, 3) ^start star*",
        "'; DROP TABLE memory_items; --",
        "-minus +plus {braces} [brackets]",
        "😀 emoji only 🚀 and 中文 mixed",
    ];
    for (n, text) in hostile.iter().enumerate() {
        store
            .save(MemoryItem::new(format!("h:{n}"), *text))
            .await
            .unwrap();
    }
    for text in hostile {
        let hits = store.search(text, &SearchOptions::default()).await.unwrap();
        assert!(!hits.is_empty(), "no hit for {text:?}");
    }
    for text in [
        "\"", "*", "-", ":", "AND", "OR", "NEAR(", "^", "\"\"\"", "😀", "", "   ",
    ] {
        store.search(text, &SearchOptions::default()).await.unwrap();
    }
    assert_eq!(store.get("h:3").await.unwrap().unwrap().content, hostile[3]);
    assert_eq!(
        store.count(&MemoryFilter::all()).await.unwrap(),
        hostile.len()
    );
    let hits = store
        .search("drop table", &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(ids(&hits), ["h:3"]);
    let hits = store
        .search("中文", &SearchOptions::default())
        .await
        .unwrap();
    assert_eq!(ids(&hits), ["h:5"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn prefix_filter_handles_edge_characters() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    for id in [
        "a%",
        "a%b",
        "a_b",
        "ab",
        "a\u{10FFFF}",
        "a\u{10FFFF}x",
        "b",
        "\u{10FFFF}",
    ] {
        store.save(MemoryItem::new(id, "x")).await.unwrap();
    }
    let list = |p: &'static str| {
        let store = &store;
        async move {
            let mut v: Vec<String> = store
                .list(&MemoryFilter::with_prefix(p))
                .await
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect();
            v.sort();
            v
        }
    };
    assert_eq!(list("a%").await, ["a%", "a%b"]);
    assert_eq!(list("a_").await, ["a_b"]);
    assert_eq!(list("a\u{10FFFF}").await, ["a\u{10FFFF}", "a\u{10FFFF}x"]);
    assert_eq!(list("\u{10FFFF}").await, ["\u{10FFFF}"]);
    assert_eq!(list("").await.len(), 8);
}

#[tokio::test(flavor = "multi_thread")]
async fn metadata_filter_compares_type_and_value() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    let rows = [
        ("m1", json!({"k": "1"})),
        ("m2", json!({"k": 1})),
        ("m3", json!({"k": 1.5})),
        ("m4", json!({"k": true})),
        ("m5", json!({"k": null})),
        ("m6", json!({"other": 1})),
        ("m7", json!(["k"])),
        ("m8", json!({"we\"ird.key$": "v"})),
    ];
    for (id, meta) in &rows {
        store
            .save(MemoryItem::new(*id, "x").with_metadata(meta.clone()))
            .await
            .unwrap();
    }
    let find = |key: &'static str, value: serde_json::Value| {
        let store = &store;
        async move {
            store
                .list(&MemoryFilter::all().metadata_eq(key, value))
                .await
                .unwrap()
                .into_iter()
                .map(|i| i.id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(find("k", json!("1")).await, ["m1"]);
    assert_eq!(find("k", json!(1)).await, ["m2"]);
    assert_eq!(find("k", json!(1.5)).await, ["m3"]);
    assert_eq!(find("k", json!(true)).await, ["m4"]);
    assert_eq!(find("k", json!(null)).await, ["m5"]);
    assert_eq!(find("we\"ird.key$", json!("v")).await, ["m8"]);
    let bad = MemoryFilter::all().metadata_eq("k", json!([1]));
    assert!(matches!(
        store.list(&bad).await,
        Err(MemoryError::InvalidInput(_))
    ));
}

#[tokio::test(flavor = "multi_thread")]
async fn unfiltered_fast_path_agrees_with_the_filtered_path() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    let mut items = Vec::new();
    for n in 0..12 {
        // Identical documents: their scores tie; the id breaks the tie.
        items.push(MemoryItem::new(format!("tie:{:02}", 11 - n), "alpha beta"));
    }
    for n in 0..40 {
        let text = format!(
            "alpha {} gamma {} delta",
            "beta ".repeat(n % 4),
            "filler ".repeat(n % 7)
        );
        items.push(MemoryItem::new(format!("doc:{n:02}"), text));
    }
    store.save_many(items).await.unwrap();
    for query in ["alpha", "beta", "gamma delta", "alpha beta gamma"] {
        for k in [1, 3, 5, 12, 13, 60] {
            let fast = store.search(query, &SearchOptions::top_k(k)).await.unwrap();
            // An empty prefix matches everything but takes the filtered path.
            let full = store
                .search(query, &SearchOptions::top_k(k).with_prefix(""))
                .await
                .unwrap();
            assert_eq!(ids(&fast), ids(&full), "query {query:?} k {k}");
            assert!(fast.windows(2).all(|w| w[0].score > w[1].score
                || (w[0].score == w[1].score && w[0].item.id < w[1].item.id)));
        }
    }
    // The identical documents come together, in id order.
    let all = store
        .search("alpha beta", &SearchOptions::top_k(60))
        .await
        .unwrap();
    let all = ids(&all);
    let first = all.iter().position(|id| id.starts_with("tie:")).unwrap();
    let expected: Vec<String> = (0..12).map(|n| format!("tie:{n:02}")).collect();
    assert_eq!(all[first..first + 12], expected);
}
