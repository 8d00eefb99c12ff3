//! Contextual embeddings (`DenseContext`): a turn of a session is also
//! embedded with its neighbours, so a short reply is found by the meaning of
//! the question before it; the window vectors follow saves and deletions.
#![cfg(test)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agcore_llm::embedding::EmbeddingModel;
use agcore_memory::hybrid::{
    DenseContext, DenseIndex, EmbeddingQueueConfig, HybridConfig, HybridStore, RetrievalMode,
};
use agcore_memory::vector::{InMemoryVectors, VectorFilter, VectorStore};
use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::json;

use crate::support;
use support::Scripted;

/// Texts holding "marathon" point along axis 5: the scripted "meaning".
const QUESTION: &str = "Did you run the Boston marathon?";
const REPLY: &str = "Yes, last Saturday!";
const QUERY: &str = "marathon race day";

fn turn(id: &str, session: &str, seq: i64, text: &str) -> MemoryItem {
    MemoryItem::new(id, text)
        .with_metadata(json!({ "session": session }))
        .with_created_at(DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(seq))
}

fn store(model: Arc<Scripted>) -> (HybridStore, Arc<InMemoryVectors>) {
    store_over(Arc::new(InMemoryStore::new()), model)
}

/// A dense-mode hybrid store over `inner`.
fn store_over(
    inner: Arc<dyn MemoryStore>,
    model: Arc<Scripted>,
) -> (HybridStore, Arc<InMemoryVectors>) {
    let vectors = Arc::new(InMemoryVectors::new(model.space()));
    let queue = EmbeddingQueueConfig::default().with_retry_delay(Duration::from_millis(20));
    let dense =
        DenseIndex::new(model, Arc::clone(&vectors) as Arc<dyn VectorStore>, queue).unwrap();
    let config = HybridConfig::default().with_mode(RetrievalMode::Dense);
    (HybridStore::new(inner, dense, config), vectors)
}

/// Saves the question and its reply as one session.
async fn save_pair(store: &dyn MemoryStore) {
    store
        .save_many(vec![
            turn("q", "s1", 1, QUESTION),
            turn("r", "s1", 2, REPLY),
        ])
        .await
        .unwrap();
}

async fn dense_ids(store: &HybridStore) -> Vec<String> {
    store
        .search(QUERY, &SearchOptions::top_k(10))
        .await
        .unwrap()
        .into_iter()
        .map(|h| h.item.id)
        .collect()
}

async fn windows(vectors: &InMemoryVectors) -> usize {
    vectors
        .count(&VectorFilter::namespace("#window"))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_is_found_by_the_meaning_of_the_question_before_it() {
    let (store, vectors) = store(Scripted::new(&[("marathon", 5)]));
    store
        .save_many(vec![
            turn("q", "s1", 1, QUESTION),
            turn("r", "s1", 2, REPLY),
            turn("x", "s2", 3, "I cooked pasta tonight"),
            MemoryItem::new("note", "Shopping list: eggs, milk"),
        ])
        .await
        .unwrap();
    store.flush().await;
    // One window per turn of a session; the note has none.
    assert_eq!(windows(&vectors).await, 3);
    let ids = dense_ids(&store).await;
    assert_eq!(ids.first().map(String::as_str), Some("q"), "{ids:?}");
    assert!(ids.contains(&"r".to_owned()), "{ids:?}");
    assert!(!ids.contains(&"x".to_owned()), "{ids:?}");

    // Without contextual embeddings the reply's own vector says nothing.
    let plain = store.view(RetrievalMode::Dense).with_config(
        HybridConfig::default()
            .with_mode(RetrievalMode::Dense)
            .with_dense_context(None),
    );
    assert_eq!(dense_ids(&plain).await, vec!["q".to_owned()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn windows_follow_turns_saved_one_by_one_and_deleted() {
    let model = Scripted::new(&[("marathon", 5)]);
    let (store, vectors) = store(Arc::clone(&model));
    // The reply first: its window holds the question only once it is saved.
    store.save(turn("r", "s1", 2, REPLY)).await.unwrap();
    store.flush().await;
    assert!(dense_ids(&store).await.is_empty());
    store.save(turn("q", "s1", 1, QUESTION)).await.unwrap();
    store.flush().await;
    assert_eq!(
        dense_ids(&store).await,
        vec!["q".to_owned(), "r".to_owned()]
    );

    // Saving the same turns again embeds nothing new.
    let texts = model.texts.load(Ordering::SeqCst);
    save_pair(&store).await;
    store.flush().await;
    assert_eq!(model.texts.load(Ordering::SeqCst), texts);

    // Deleting the question removes its vectors and rewrites the reply's window.
    store.delete("q").await.unwrap();
    store.flush().await;
    assert_eq!(windows(&vectors).await, 1);
    assert!(dense_ids(&store).await.is_empty());
}

/// Vectors made from a text the memory no longer holds recall nothing, by
/// their own vector or by their window's: the question's own vector is among
/// the dense hits (its window takes that verdict), the reply's is not (its
/// window is checked alone).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_of_replaced_texts_recall_nothing() {
    let inner: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
    let (store, _vectors) = store_over(Arc::clone(&inner), Scripted::new(&[("marathon", 5)]));
    save_pair(&store).await;
    store.flush().await;
    assert_eq!(
        dense_ids(&store).await,
        vec!["q".to_owned(), "r".to_owned()]
    );
    // Replaced behind the hybrid store's back: no vector is re-embedded.
    inner
        .save_many(vec![
            turn("q", "s1", 1, "Did you bake bread?"),
            turn("r", "s1", 2, "No, not yet."),
        ])
        .await
        .unwrap();
    assert!(dense_ids(&store).await.is_empty());
}

#[test]
fn settings_have_documented_defaults() {
    let c = DenseContext::default();
    assert_eq!(
        (c.group_key.as_str(), c.window, c.weight),
        ("session", 1, 0.5)
    );
    assert_eq!(
        HybridConfig::default().dense_context,
        Some(DenseContext::default())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_saves_and_flushes_all_finish_with_every_window() {
    let (store, vectors) = store(Scripted::new(&[("marathon", 5)]));
    let mut tasks = Vec::new();
    for i in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let id = format!("t{i}");
            store.save(turn(&id, "s1", i, "a turn")).await.unwrap();
            store.flush().await;
        }));
    }
    // A hang guard, not a timing goal: a lost wake-up would block forever.
    for task in tasks {
        tokio::time::timeout(Duration::from_secs(60), task)
            .await
            .unwrap()
            .unwrap();
    }
    store.flush().await;
    assert_eq!(windows(&vectors).await, 8);
}
