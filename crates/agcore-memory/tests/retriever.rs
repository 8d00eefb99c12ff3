//! MemoryRetriever end to end, and the indexed search against the linear scan.
#![cfg(test)]

use std::sync::Arc;

use agcore_memory::retriever::{Bm25, MemoryRetriever, RetrievedSource, RetrieverConfig};
use agcore_memory::{
    InMemoryStore, KnowledgePage, KnowledgeStore, MemoryError, MemoryFilter, MemoryItem,
    MemoryStore, SearchOptions,
};

async fn sources() -> (Arc<InMemoryStore>, Arc<KnowledgeStore>) {
    let store = Arc::new(InMemoryStore::new());
    store
        .save(MemoryItem::new("m:style", "user prefers concise answers"))
        .await
        .unwrap();
    store
        .save(MemoryItem::new(
            "m:deploy",
            "deploys happen on monday mornings",
        ))
        .await
        .unwrap();
    store
        .save(MemoryItem::new("m:zh", "用户喜欢简洁的回答"))
        .await
        .unwrap();
    let wiki = Arc::new(KnowledgeStore::new(Arc::new(InMemoryStore::new())));
    wiki.add_page(KnowledgePage::new(
        "deploy",
        "Deploy process",
        "How deploys happen",
        "Blue green, monday",
    ))
    .await
    .unwrap();
    (store, wiki)
}

#[tokio::test]
async fn retrieves_from_both_sources_best_first() {
    let (store, wiki) = sources().await;
    let retriever = MemoryRetriever::new(RetrieverConfig::default())
        .with_memory_store(store)
        .with_knowledge_store(wiki);
    let result = retriever.retrieve("How do deploys happen?").await.unwrap();
    assert_eq!(result.keywords, ["deploys", "happen"]);
    let ids: Vec<&str> = result.items.iter().map(|i| i.id()).collect();
    assert_eq!(ids[0], "deploy", "{ids:?}");
    assert!(ids.contains(&"m:deploy"));
    assert!(!ids.contains(&"m:style"));
    assert!(matches!(result.items[0].source, RetrievedSource::Page(_)));
    assert!(result.items.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(
        result
            .items
            .iter()
            .all(|i| (0.0..=1.0).contains(&i.score) && i.score >= 0.1)
    );
    let zh = retriever.retrieve("简洁回答").await.unwrap();
    assert_eq!(zh.items[0].id(), "m:zh");
}

#[tokio::test]
async fn min_score_max_results_and_empty_queries() {
    let (store, wiki) = sources().await;
    let strict = MemoryRetriever::new(RetrieverConfig::default().with_min_score(0.99))
        .with_memory_store(Arc::clone(&store) as Arc<dyn MemoryStore>);
    assert!(strict.retrieve("deploys").await.unwrap().items.is_empty());
    let one = MemoryRetriever::over_knowledge(wiki, RetrieverConfig::default().with_max_results(1))
        .with_memory_store(Arc::clone(&store) as Arc<dyn MemoryStore>);
    assert_eq!(one.retrieve("deploys happen").await.unwrap().items.len(), 1);
    assert!(one.retrieve("the and of").await.unwrap().items.is_empty());
    let err = MemoryRetriever::new(RetrieverConfig::default().with_max_results(0))
        .retrieve("x")
        .await
        .unwrap_err();
    assert!(matches!(err, MemoryError::InvalidInput(_)));
    let bm25 = MemoryRetriever::new(RetrieverConfig::default().with_min_score(0.0))
        .with_memory_store(store)
        .with_scorer(Arc::new(Bm25::default()));
    assert_eq!(
        bm25.retrieve("concise").await.unwrap().items[0].id(),
        "m:style"
    );
}

/// The inverted index and the linear scan agree on which items match and in what order.
#[tokio::test]
async fn indexed_search_matches_linear_scan() {
    let store = InMemoryStore::new();
    let words = [
        "alpha", "bravo", "charlie", "delta", "echo", "记忆", "系统", "检索",
    ];
    for i in 0..300_usize {
        let text: Vec<&str> = (0..(3 + i % 5))
            .map(|j| words[(i * 7 + j * 3) % words.len()])
            .collect();
        store
            .save(MemoryItem::new(format!("doc:{i:04}"), text.join(" ")))
            .await
            .unwrap();
    }
    for i in 0..50 {
        store.delete(&format!("doc:{:04}", i * 3)).await.unwrap();
    }
    // Rare terms take the sparse accumulator path.
    store
        .save(MemoryItem::new("doc:rare1", "zulu yankee alpha"))
        .await
        .unwrap();
    store
        .save(MemoryItem::new("doc:rare2", "zulu"))
        .await
        .unwrap();
    for query in [
        "alpha",
        "bravo delta",
        "记忆系统",
        "echo 检索 charlie",
        "nothing",
    ] {
        for opts in [
            SearchOptions::top_k(10),
            SearchOptions::top_k(1000).with_filter(MemoryFilter::with_prefix("doc:01")),
        ] {
            let fast = store.search(query, &opts).await.unwrap();
            let slow = store.linear_scan_search(query, &opts).await.unwrap();
            let f: Vec<(&str, i64)> = fast
                .iter()
                .map(|h| (h.item.id.as_str(), (h.score * 1e9) as i64))
                .collect();
            let s: Vec<(&str, i64)> = slow
                .iter()
                .map(|h| (h.item.id.as_str(), (h.score * 1e9) as i64))
                .collect();
            if opts.filter.prefix.is_none() {
                assert_eq!(f, s, "query {query}");
            } else {
                // BM25 statistics differ (whole store vs filtered candidates): same set.
                let mut a: Vec<&str> = f.iter().map(|x| x.0).collect();
                let mut b: Vec<&str> = s.iter().map(|x| x.0).collect();
                a.sort_unstable();
                b.sort_unstable();
                assert_eq!(a, b, "query {query}");
            }
        }
    }
}

#[tokio::test]
async fn eviction_keeps_the_index_consistent() {
    let store = InMemoryStore::with_eviction(agcore_memory::EvictionConfig::capacity(5, 1));
    for i in 0..20 {
        store
            .save(MemoryItem::new(
                format!("e:{i:02}"),
                format!("token{i} shared"),
            ))
            .await
            .unwrap();
    }
    let hits = store
        .search("shared", &SearchOptions::top_k(100))
        .await
        .unwrap();
    assert_eq!(hits.len(), 5);
    assert!(
        store
            .search("token3", &SearchOptions::default())
            .await
            .unwrap()
            .is_empty()
    );
    assert_eq!(store.evict_now().unwrap(), 0);
}
