//! The report's context-field lines: the corpus's memories as turns of
//! sessions (20 consecutive memories each, one second apart), searched in a
//! `SqliteStore` with the context field and in one without it (plain BM25,
//! the search path of stores without sessions), and inserted into each.

use std::time::Instant;

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::{Corpus, ms, percentiles};

/// Memories per session.
const TURNS: usize = 20;

/// Prints, for `n` memories in sessions: batched insert rates and search
/// p50/p99 with the field and without it, and their ratios.
pub async fn report(corpus: &Corpus, n: usize, queries: &[String], top_k: usize) {
    let items: Vec<MemoryItem> = corpus
        .memories(n, 7)
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            item.with_metadata(serde_json::json!({ "session": i / TURNS }))
                .with_created_at(agcore_memory_testkit::at(i as i64))
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut lines = Vec::new();
    for (name, field) in [
        ("context field", Some(ContextField::default())),
        ("no field", None),
    ] {
        let store = SqliteStore::builder()
            .context_field(field)
            .open(dir.path().join(format!("{}.db", name.replace(' ', "-"))))
            .await
            .unwrap();
        let started = Instant::now();
        for chunk in items.chunks(10_000) {
            store.save_many(chunk.to_vec()).await.unwrap();
        }
        let rate = n as f64 / started.elapsed().as_secs_f64();
        let opts = SearchOptions::top_k(top_k);
        let p = percentiles(queries, |q| {
            let (store, opts) = (&store, &opts);
            async move {
                store.search(&q, opts).await.unwrap();
            }
        })
        .await;
        lines.push((name, rate, ms(p.p50), ms(p.p99)));
    }
    for (name, rate, p50, p99) in &lines {
        println!(
            "n={n} in sessions of {TURNS}: sqlite {name}: batched insert {rate:.0}/s, search p50 {p50:.3} ms p99 {p99:.3} ms"
        );
    }
    if let [(_, r1, a50, a99), (_, r0, b50, b99)] = lines.as_slice() {
        println!(
            "n={n} in sessions: context field / no field: insert rate {:.2}, search p50 {:.2}x p99 {:.2}x",
            r1 / r0,
            a50 / b50,
            a99 / b99
        );
    }
}
