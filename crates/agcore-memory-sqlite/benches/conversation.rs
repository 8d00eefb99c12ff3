//! Search latency on one LoCoMo-like conversation: ~600 turns in sessions of
//! 20 (a date prefix shared by a session's turns, a speaker name, 10–25
//! words), queried with 5–10 words, in `SqliteStore` (context field on) and
//! `InMemoryStore` (the same ranking). Prints search p50/p99
//! (`cargo bench -p agcore-memory-sqlite --bench conversation`;
//! `AGCORE_BENCH_TURNS=10000` for a longer one).
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap
)]

use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::corpus::{ms, percentiles};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Turns unless `AGCORE_BENCH_TURNS` says otherwise.
const TURNS: usize = 600;
const PER_SESSION: usize = 20;
const QUERIES: usize = 2_000;
const TOP_K: usize = 10;
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// A Zipf-like pick among `vocab` words.
fn word(rng: &mut StdRng, vocab: &[String]) -> String {
    let r: f64 = rng.random();
    let i = ((vocab.len() as f64).powf(r) - 1.0) as usize;
    vocab[i.min(vocab.len() - 1)].clone()
}

fn conversation(seed: u64) -> (Vec<MemoryItem>, Vec<String>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let vocab: Vec<String> = (0..3_000)
        .map(|i| {
            let len = 3 + i % 6;
            (0..len)
                .map(|j| (b'a' + ((i * 7 + j * 13 + i / 26) % 26) as u8) as char)
                .collect()
        })
        .collect();
    let speakers = ["Caroline", "Melanie"];
    let turns = std::env::var("AGCORE_BENCH_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(TURNS);
    let items = (0..turns)
        .map(|i| {
            let s = i / PER_SESSION;
            let date = format!(
                "[{}:{:02} {} on {} {}, 2023]",
                1 + s % 12,
                (s * 7) % 60,
                if s.is_multiple_of(2) { "pm" } else { "am" },
                1 + s % 28,
                MONTHS[s % 12]
            );
            let n = rng.random_range(10..=25);
            let words: Vec<String> = (0..n).map(|_| word(&mut rng, &vocab)).collect();
            let text = format!("{date} {}: {}", speakers[i % 2], words.join(" "));
            MemoryItem::new(format!("t{i:04}"), text)
                .with_metadata(serde_json::json!({ "session": s }))
                .with_created_at(agcore_memory_testkit::at(i as i64))
        })
        .collect();
    let queries = (0..QUERIES)
        .map(|q| {
            let n = rng.random_range(5..=10);
            let mut words: Vec<String> = (0..n).map(|_| word(&mut rng, &vocab)).collect();
            match q % 4 {
                0 => words.push("when".into()),
                1 => words.push(speakers[q % 2].into()),
                2 => words.push(MONTHS[q % 12].into()),
                _ => words.push("2023".into()),
            }
            words.join(" ")
        })
        .collect();
    (items, queries)
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (items, queries) = conversation(11);
        let turns = items.len();
        let dir = tempfile::tempdir().unwrap();
        let sqlite = SqliteStore::open(dir.path().join("conv.db")).await.unwrap();
        sqlite.save_many(items.clone()).await.unwrap();
        let memory = InMemoryStore::new();
        memory.save_many(items).await.unwrap();
        let opts = SearchOptions::top_k(TOP_K);
        for round in 0..3 {
            for (name, store) in [
                ("sqlite", &sqlite as &dyn MemoryStore),
                ("in-memory", &memory as &dyn MemoryStore),
            ] {
                let p = percentiles(&queries, |q| {
                    let opts = &opts;
                    async move {
                        store.search(&q, opts).await.unwrap();
                    }
                })
                .await;
                println!(
                    "round {round} {name}: {} turns, search p50 {:.3} ms p99 {:.3} ms",
                    turns,
                    ms(p.p50),
                    ms(p.p99)
                );
            }
        }
    });
}
