//! The bulk path (`HybridStore::save_bulk`, `HybridStore::reembed`,
//! `DenseIndex::embed_all`, `LongTermMemory::reembed`): every text and every
//! window embedded once, before the call returns, with the same vectors the
//! background queue makes.
#![cfg(test)]

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agcore_llm::embedding::EmbeddingModel;
use agcore_memory::hybrid::{
    DenseIndex, EmbedProgress, EmbeddingQueueConfig, HybridConfig, HybridStore, KeyedText,
    RetrievalMode,
};
use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory, MemoryType, NewMemory};
use agcore_memory::vector::{InMemoryVectors, VectorFilter, VectorStore};
use agcore_memory::{InMemoryStore, MemoryFilter, MemoryItem};
use chrono::{DateTime, TimeDelta, Utc};
use serde_json::json;

use crate::support;
use support::Scripted;

fn turn(id: &str, session: &str, seq: i64, text: &str) -> MemoryItem {
    MemoryItem::new(id, text)
        .with_metadata(json!({ "session": session }))
        .with_created_at(DateTime::<Utc>::UNIX_EPOCH + TimeDelta::seconds(seq))
}

/// Two sessions: four turns (one text said twice) and two turns.
fn dialogue() -> Vec<MemoryItem> {
    vec![
        turn("a1", "s1", 1, "Did you run the Boston marathon?"),
        turn("a2", "s1", 2, "Yes, last Saturday!"),
        turn("a3", "s1", 3, "How did it go?"),
        turn("a4", "s1", 4, "Yes, last Saturday!"),
        turn("b1", "s2", 5, "We adopted a cat."),
        turn("b2", "s2", 6, "What is its name?"),
    ]
}

fn store(model: Arc<Scripted>) -> (HybridStore, Arc<InMemoryVectors>) {
    let vectors = Arc::new(InMemoryVectors::new(model.space()));
    let queue = EmbeddingQueueConfig::default().with_retry_delay(Duration::from_millis(20));
    let dense =
        DenseIndex::new(model, Arc::clone(&vectors) as Arc<dyn VectorStore>, queue).unwrap();
    let config = HybridConfig::default().with_mode(RetrievalMode::Dense);
    (
        HybridStore::new(Arc::new(InMemoryStore::new()), dense, config),
        vectors,
    )
}

/// Every stored vector of `namespace`, sorted by id.
async fn all_vectors(vectors: &InMemoryVectors, namespace: &str, ids: &[&str]) -> Vec<Vec<f32>> {
    let ids: Vec<String> = ids.iter().map(|s| (*s).to_owned()).collect();
    vectors
        .vectors(namespace, &ids)
        .await
        .unwrap()
        .into_iter()
        .map(Option::unwrap)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_save_embeds_each_text_and_window_once_like_the_queue() {
    let model = Scripted::new(&[("marathon", 5), ("cat", 7)]);
    let (bulk, vectors) = store(Arc::clone(&model));
    let seen: Arc<Mutex<Vec<EmbedProgress>>> = Arc::default();
    let log = Arc::clone(&seen);
    let report = bulk
        .save_bulk(
            dialogue(),
            Some(&move |p: EmbedProgress| log.lock().unwrap().push(p)),
        )
        .await
        .unwrap();
    // 6 own texts (5 distinct) and 6 windows (5 distinct: both turns of s2
    // have the window "b1\nb2").
    assert_eq!(report.texts, 12);
    assert_eq!(report.embedded, 12);
    assert_eq!(report.up_to_date, 0);
    assert_eq!(report.model_texts, 10);
    assert_eq!(
        model.texts.load(Ordering::SeqCst),
        10,
        "a text embedded twice"
    );
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen.last(),
        Some(&EmbedProgress {
            done: 12,
            total: 12
        })
    );
    assert!(seen.windows(2).all(|w| w[0].done <= w[1].done), "{seen:?}");
    assert_eq!(
        vectors
            .count(&VectorFilter::namespace("#window"))
            .await
            .unwrap(),
        6
    );
    // Nothing was left to the background queue.
    assert_eq!(bulk.queue_counts().pending, 0);

    // The background path ends with the same vectors.
    let (queued, queue_vectors) = store(Scripted::new(&[("marathon", 5), ("cat", 7)]));
    agcore_memory::MemoryStore::save_many(&queued, dialogue())
        .await
        .unwrap();
    queued.flush().await;
    let ids = ["a1", "a2", "a3", "a4", "b1", "b2"];
    for namespace in ["", "#window"] {
        assert_eq!(
            all_vectors(&vectors, namespace, &ids).await,
            all_vectors(&queue_vectors, namespace, &ids).await,
            "{namespace}"
        );
    }

    // Re-embedding finds every vector up to date: no model call.
    let before = model.texts.load(Ordering::SeqCst);
    let again = bulk.reembed(&MemoryFilter::default(), None).await.unwrap();
    assert_eq!((again.texts, again.up_to_date, again.embedded), (12, 12, 0));
    assert_eq!(model.texts.load(Ordering::SeqCst), before);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embed_all_keeps_the_last_text_of_a_key_and_reports_failures() {
    let model = Scripted::new(&[]);
    let (store, vectors) = store(Arc::clone(&model));
    let dense = store.dense().unwrap();
    let report = dense
        .embed_all(
            vec![
                KeyedText::new("n", "x", "first text"),
                KeyedText::new("n", "x", "second text"),
            ],
            None,
        )
        .await
        .unwrap();
    assert_eq!((report.texts, report.embedded), (1, 1));
    let hashes = vectors
        .content_hashes("n", &["x".to_owned()])
        .await
        .unwrap();
    assert_eq!(
        hashes[0].as_deref(),
        Some(agcore_memory::hybrid::content_hash(model.model_id(), "second text").as_str())
    );
    model.down.store(true, Ordering::SeqCst);
    let err = dense
        .embed_all(vec![KeyedText::new("n", "y", "new text")], None)
        .await
        .unwrap_err();
    assert!(
        matches!(err, agcore_memory::MemoryError::Embedding(_)),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_term_reembed_embeds_every_scope_now() {
    let model = Scripted::new(&[]);
    let (store, vectors) = store(Arc::clone(&model));
    let dense = Arc::clone(store.dense().unwrap());
    let plain = LongTermMemory::new(InMemoryLongTerm::new());
    for (user, text) in [("u1", "Likes tea"), ("u2", "用户住在上海")] {
        plain
            .scope("agent", user)
            .unwrap()
            .save(NewMemory::new(MemoryType::User, "", text))
            .await
            .unwrap();
    }
    let memory = plain.with_dense(dense, HybridConfig::default());
    let report = memory.reembed(None).await.unwrap();
    assert_eq!((report.texts, report.embedded), (2, 2));
    assert_eq!(vectors.count(&VectorFilter::default()).await.unwrap(), 2);
    let again = memory.reembed(None).await.unwrap();
    assert_eq!((again.up_to_date, again.embedded), (2, 0));
}
