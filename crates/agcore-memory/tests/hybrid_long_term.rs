//! Hybrid retrieval outside `HybridStore`: long-term scopes, conversation
//! history and the knowledge wiki over one shared dense index.
#![cfg(test)]

use std::sync::Arc;
use std::time::Duration;

use agcore_llm::embedding::EmbeddingModel;
use agcore_memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore};
use agcore_memory::long_term::{
    InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory, SearchRequest,
};
use agcore_memory::vector::{InMemoryVectors, VectorFilter, VectorStore};
use agcore_memory::{
    ConversationMemory, ConversationMemoryConfig, InMemoryStore, KnowledgePage, KnowledgeStore,
};
use agcore_types::ChatMessage;

use crate::support;
use support::Scripted;

const BRIGHTON: &str = "We drove to Brighton for the weekend";
const QUERY: &str = "the trip to the coast";
/// The text a wiki page with this title, summary and body is indexed by.
const PAGE_TEXT: &str = "Trips\nWeekend trips\n\nWe drove to Brighton for the weekend";

fn dense(model: Arc<Scripted>) -> (Arc<DenseIndex>, Arc<InMemoryVectors>) {
    let vectors = Arc::new(InMemoryVectors::new(model.space()));
    let queue = EmbeddingQueueConfig::default().with_retry_delay(Duration::from_millis(20));
    let index =
        DenseIndex::new(model, Arc::clone(&vectors) as Arc<dyn VectorStore>, queue).unwrap();
    (index, vectors)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_scopes_recall_by_meaning_and_stay_apart() {
    let model = Scripted::new(&[(BRIGHTON, 3), (QUERY, 3)]);
    let (index, vectors) = dense(Arc::clone(&model));
    let memory = LongTermMemory::new(InMemoryLongTerm::new())
        .with_dense(Arc::clone(&index), HybridConfig::default());
    let alice = memory.scope("assistant", "alice").unwrap();
    let bob = memory.scope("assistant", "bob").unwrap();
    let saved = alice
        .save(NewMemory::new(MemoryType::User, "outing", BRIGHTON))
        .await
        .unwrap();
    bob.save(NewMemory::new(
        MemoryType::User,
        "tea",
        "Bob likes green tea",
    ))
    .await
    .unwrap();
    index.flush().await;

    // No word in common: found through its vector, in alice's scope only.
    let hits = alice.search(QUERY, 5).await.unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].entry.id, saved.entry.id);
    assert!(
        bob.search(QUERY, 5)
            .await
            .unwrap()
            .iter()
            .all(|h| h.entry.user_id == "bob")
    );
    let report = alice
        .search_explained(QUERY, &SearchRequest::top_k(5))
        .await
        .unwrap();
    let hit = report.results().next().unwrap();
    assert!(hit.breakdown.lexical.is_none() && hit.breakdown.dense.is_some());

    // Namespaces per scope; a delete drops the vector; an archived entry
    // found only by its vector is excluded like a lexical one.
    let ns = LongTermMemory::vector_namespace(alice.scope());
    assert_eq!(
        vectors
            .count(&VectorFilter::namespace(ns.clone()))
            .await
            .unwrap(),
        1
    );
    alice.archive_below(1e9).await.unwrap();
    assert!(alice.search(QUERY, 5).await.unwrap().is_empty());
    assert!(alice.delete(saved.entry.id).await.unwrap());
    assert_eq!(
        vectors.count(&VectorFilter::namespace(ns)).await.unwrap(),
        0
    );

    // Backfill re-queues every entry; unchanged texts cost no model call.
    let calls = model.texts.load(std::sync::atomic::Ordering::SeqCst);
    assert_eq!(memory.backfill_vectors().await.unwrap(), 1);
    index.flush().await;
    assert_eq!(model.texts.load(std::sync::atomic::Ordering::SeqCst), calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn imports_are_embedded() {
    let model = Scripted::new(&[(BRIGHTON, 3), (QUERY, 3)]);
    let (index, _) = dense(model);
    let source = LongTermMemory::new(InMemoryLongTerm::new());
    let s = source.scope("a", "u").unwrap();
    s.save(NewMemory::new(MemoryType::User, "outing", BRIGHTON))
        .await
        .unwrap();
    let entries = s.list(&Default::default()).await.unwrap();
    let target = LongTermMemory::new(InMemoryLongTerm::new())
        .with_dense(Arc::clone(&index), HybridConfig::default());
    target.import_entries(entries).await.unwrap();
    index.flush().await;
    let hits = target
        .scope("a", "u")
        .unwrap()
        .search(QUERY, 3)
        .await
        .unwrap();
    assert_eq!(hits.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conversation_and_wiki_search_through_a_hybrid_store() {
    let model = Scripted::new(&[(BRIGHTON, 3), (QUERY, 3), (PAGE_TEXT, 3)]);
    let (index, _) = dense(model);
    let store = Arc::new(HybridStore::new(
        Arc::new(InMemoryStore::new()),
        index.clone(),
        HybridConfig::default(),
    ));
    let chat =
        ConversationMemory::new(store.clone(), "s1", ConversationMemoryConfig::default()).unwrap();
    chat.add_message(ChatMessage::user("hello there"))
        .await
        .unwrap();
    chat.add_message(ChatMessage::user(BRIGHTON)).await.unwrap();
    index.flush().await;
    let found = chat.search(QUERY, 3).await.unwrap();
    assert_eq!(found[0].0.message.text(), BRIGHTON);

    let wiki = KnowledgeStore::new(store.clone());
    wiki.add_page(KnowledgePage::new(
        "trips",
        "Trips",
        "Weekend trips",
        BRIGHTON,
    ))
    .await
    .unwrap();
    index.flush().await;
    let pages = wiki.search(QUERY).await.unwrap();
    assert!(pages.iter().any(|p| p.id == "trips"), "{pages:?}");
}
