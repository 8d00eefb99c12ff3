//! Long-term memory maintenance on SQLite: one scope of N entries (10k,
//! 100k) among 10 small scopes.
//!
//! Two identical databases are seeded (entries last weighted a day before
//! the first run, one in ten just above the archive threshold). On one, the
//! set-based `LongTermBackend::maintenance` runs; on the other, the
//! row-by-row reference of earlier releases
//! (`agcore_memory::long_term::sql::row_by_row_maintenance` on the SQLite
//! driver: every active entry loaded, aged in Rust and stored back). Each
//! runs at day 1..=5 (every active row decays: the daily run) and again one
//! second later (nothing to do: a frequent schedule). Then
//! `LongTermMemory::maintenance_all_at` — decay, archiving and the dedupe of
//! near duplicates over every scope, what `agcore memory maintain` and the
//! schedule run — is timed on the set-based database. Prints p50 / max and the ratio reference / set-based.
//!
//! `cargo bench -p agcore-memory-sqlite --bench maintenance`
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::indexing_slicing
)]

use std::time::{Duration, Instant};

use agcore_memory::long_term::sql::row_by_row_maintenance;
use agcore_memory::long_term::{
    DEFAULT_DEDUPE_THRESHOLD, LongTermBackend, LongTermMemory, MemoryEntry, MemoryScope,
    MemoryType, NewMemory, WeightRules, apply, near_duplicates,
};
use agcore_memory_sqlite::{SqliteDatabase, SqliteLongTerm};
use agcore_memory_testkit::corpus::{Corpus, sizes};
use chrono::{DateTime, Utc};

#[path = "support/realistic.rs"]
mod realistic;

const RUNS: i64 = 5;
const SMALL_SCOPES: usize = 10;

fn entries(
    scope: &MemoryScope,
    corpus: &Corpus,
    n: usize,
    seed: u64,
    at: DateTime<Utc>,
) -> Vec<MemoryEntry> {
    let rules = WeightRules::default();
    corpus
        .memories(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let mut e = apply::new_entry(
                scope,
                NewMemory::new(MemoryType::User, "", item.content),
                &rules,
                at,
            );
            e.weight = if i % 10 == 0 {
                0.305
            } else {
                1.0 + (i % 7) as f64 / 7.0
            };
            e
        })
        .collect()
}

async fn seeded(
    path: &std::path::Path,
    n: usize,
    corpus: &Corpus,
    at: DateTime<Utc>,
) -> SqliteLongTerm {
    let lt = SqliteDatabase::open(path).await.unwrap().long_term();
    for s in 0..SMALL_SCOPES {
        let scope = MemoryScope::new("bench", format!("user-{s}")).unwrap();
        lt.import_entries(entries(&scope, corpus, 100, s as u64, at))
            .await
            .unwrap();
    }
    let heavy = MemoryScope::new("bench", "heavy").unwrap();
    let all = entries(&heavy, corpus, n, 7, at);
    for chunk in all.chunks(10_000) {
        lt.import_entries(chunk.to_vec()).await.unwrap();
    }
    lt
}

fn summary(mut times: Vec<Duration>) -> (Duration, Duration) {
    times.sort();
    (times[times.len() / 2], times[times.len() - 1])
}

fn line(label: &str, set: (Duration, Duration), reference: (Duration, Duration)) {
    println!(
        "  {label:<28} set-based p50 {:>9.1?} max {:>9.1?} | row-by-row p50 {:>9.1?} max {:>9.1?} | ratio {:.1}x",
        set.0,
        set.1,
        reference.0,
        reference.1,
        reference.0.as_secs_f64() / set.0.as_secs_f64().max(1e-9)
    );
}

async fn bench(n: usize, corpus: &Corpus) {
    let dir = tempfile::tempdir().unwrap();
    let t0 = Utc::now() - chrono::Duration::days(1);
    let set_based = seeded(&dir.path().join("set.db"), n, corpus, t0).await;
    let reference = seeded(&dir.path().join("ref.db"), n, corpus, t0).await;
    let heavy = MemoryScope::new("bench", "heavy").unwrap();
    let rules = WeightRules::default();
    let (mut set_daily, mut ref_daily, mut set_idle, mut ref_idle) =
        (vec![], vec![], vec![], vec![]);
    for day in 1..=RUNS {
        for (second, set_times, ref_times) in [
            (0, &mut set_daily, &mut ref_daily),
            (1, &mut set_idle, &mut ref_idle),
        ] {
            let now = t0 + chrono::Duration::days(day) + chrono::Duration::seconds(second);
            let purge = now - chrono::Duration::days(7);
            let started = Instant::now();
            let a = set_based
                .maintenance(&heavy, &rules, now, purge)
                .await
                .unwrap();
            set_times.push(started.elapsed());
            let started = Instant::now();
            let b = row_by_row_maintenance(reference.driver(), &heavy, &rules, now, purge)
                .await
                .unwrap();
            ref_times.push(started.elapsed());
            assert_eq!(a, b, "set-based and row-by-row maintenance disagree");
            if day == 1 {
                println!("  day {day} +{second}s counts: {a:?}");
            }
        }
    }
    println!("== maintenance, one scope of {n} entries (+{SMALL_SCOPES} scopes of 100) ==");
    line(
        "daily run (all rows decay)",
        summary(set_daily),
        summary(ref_daily),
    );
    line(
        "run 1 s later (no change)",
        summary(set_idle),
        summary(ref_idle),
    );
    dedupe_runs(
        "bench corpus",
        set_based,
        &heavy,
        corpus_texts(corpus, n / 100, 99),
        t0,
    )
    .await;
}

/// The texts of `n` bench-corpus memories.
fn corpus_texts(corpus: &Corpus, n: usize, seed: u64) -> Vec<String> {
    corpus
        .memories(n, seed)
        .into_iter()
        .map(|m| m.content)
        .collect()
}

fn user_entries(scope: &MemoryScope, texts: Vec<String>, at: DateTime<Utc>) -> Vec<MemoryEntry> {
    let rules = WeightRules::default();
    texts
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            let mut e = apply::new_entry(
                scope,
                NewMemory::new(MemoryType::User, "", text),
                &rules,
                at,
            );
            e.weight = 1.0 + (i % 7) as f64 / 7.0;
            e
        })
        .collect()
}

/// The dedupe alone (reading the terms, finding the pairs), then
/// `LongTermMemory::maintenance_all_at` (decay + archive + dedupe, every
/// scope) on a fresh `LongTermMemory` (first run: every entry compared),
/// the next day (nothing new), and after `added` new entries (1%).
async fn dedupe_runs(
    label: &str,
    lt: SqliteLongTerm,
    heavy: &MemoryScope,
    added: Vec<String>,
    t0: DateTime<Utc>,
) {
    let started = Instant::now();
    let sets = lt.dedupe_terms(heavy).await.unwrap();
    let read = started.elapsed();
    let started = Instant::now();
    let found = near_duplicates(&sets, DEFAULT_DEDUPE_THRESHOLD);
    let join = started.elapsed();
    println!(
        "  [{label}] dedupe alone: dedupe_terms {read:.1?} ({} sets), near_duplicates {join:.1?} ({} found)",
        sets.len(),
        found.len()
    );
    let memory = LongTermMemory::new(lt);
    let mut at = t0 + chrono::Duration::days(RUNS + 1);
    timed(&memory, label, "first run (all compared)", at).await;
    at += chrono::Duration::days(1);
    timed(&memory, label, "next day (nothing new)", at).await;
    let n = added.len();
    memory
        .import_entries(user_entries(heavy, added, at))
        .await
        .unwrap();
    at += chrono::Duration::days(1);
    timed(&memory, label, &format!("after {n} new entries"), at).await;
}

async fn timed(memory: &LongTermMemory, label: &str, what: &str, at: DateTime<Utc>) {
    let started = Instant::now();
    let report = memory.maintenance_all_at(at).await.unwrap();
    println!(
        "  [{label}] maintenance_all {what:<30} {:>9.1?}  {report:?}",
        started.elapsed()
    );
}

async fn realistic(n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let t0 = Utc::now() - chrono::Duration::days(1);
    let corpus = realistic::Realistic::new();
    let lt = SqliteDatabase::open(&dir.path().join("real.db"))
        .await
        .unwrap()
        .long_term();
    let heavy = MemoryScope::new("bench", "heavy").unwrap();
    let all = user_entries(&heavy, corpus.memories(n + n / 100, 7), t0);
    let (base, added) = all.split_at(n);
    for chunk in base.chunks(10_000) {
        lt.import_entries(chunk.to_vec()).await.unwrap();
    }
    let added = added.iter().map(|e| e.content.clone()).collect();
    println!("== dedupe, realistic vocabulary, one scope of {n} entries ==");
    dedupe_runs("realistic", lt, &heavy, added, t0).await;
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let corpus = Corpus::new();
    for n in sizes() {
        rt.block_on(bench(n, &corpus));
    }
    for n in sizes() {
        rt.block_on(realistic(n));
    }
}
