//! The `file` memory store over this repository's `docs/` and
//! `crates/*/src` (Markdown and Rust, lexical index, default chunking 500/50):
//! first index build (files/s, chunks/s), reload with nothing changed
//! (a restart reading the persisted index, and a second `load()` of a
//! running store), reload after one file changed, and retrieval.
//!
//! Before the criterion groups, prints the absolute figures for both item
//! stores — in memory (no backend opener: indexed at each start) and on
//! disk (SQLite beside the index file, as the `agcore` facade opens it):
//! build time with files/s and chunks/s, each reload as a share of the
//! build time (goal: an unchanged reload ≤ 5 % of the build), and retrieve
//! p50/p99 of 500 queries. The criterion groups run the on-disk store.
#![allow(
    missing_docs,
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_agent::attach::stores::file::{FileStore, index_db_path, parse_file_config};
use agcore_agent::attach::{AttachedStore, BackendOpener, ConfigLocation, StoreContext, StoreSpec};
use agcore_memory::{MemoryError, MemoryStore};
use agcore_memory_sqlite::SqliteStore;
use async_trait::async_trait;
use criterion::{Criterion, Throughput};
use serde_json::json;

/// Opens the on-disk item store as the `agcore` facade does.
struct Sqlite;

#[async_trait]
impl BackendOpener for Sqlite {
    async fn open(&self, url: &str) -> Result<Arc<dyn MemoryStore>, MemoryError> {
        Err(MemoryError::InvalidInput(format!("no URLs here: {url}")))
    }

    async fn open_index(&self, path: &Path) -> Result<Option<Arc<dyn MemoryStore>>, MemoryError> {
        Ok(Some(Arc::new(SqliteStore::open(path).await?)))
    }
}

const QUERIES: [&str; 10] = [
    "embedding queue retry",
    "hybrid search fusion",
    "long-term memory prefetch",
    "tool loop limits",
    "SQLite backend migration",
    "memory-context markup escape",
    "plan step transition",
    "BM25 tokenizer CJK bigrams",
    "streaming events",
    "session TTL",
];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Copies docs/ and crates/*/src (.md, .rs) into `dir`.
fn copy_corpus(dir: &Path) -> usize {
    let root = repo_root();
    let mut copied = 0;
    let mut stack = vec![root.join("docs")];
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        stack.push(entry.path().join("src"));
    }
    while let Some(folder) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md" || e == "rs") {
                let rel = path.strip_prefix(&root).unwrap();
                let target = dir.join(rel);
                std::fs::create_dir_all(target.parent().unwrap()).unwrap();
                std::fs::copy(&path, &target).unwrap();
                copied += 1;
            }
        }
    }
    copied
}

async fn store(corpus: &Path, index: &Path, on_disk: bool) -> FileStore {
    let config = json!({
        "file_sources": [{"path": corpus, "file_types": [".md", ".rs"]}],
        "index_path": index,
    });
    let ctx = StoreContext {
        backends: on_disk.then(|| Arc::new(Sqlite) as Arc<dyn BackendOpener>),
        ..StoreContext::default()
    };
    let parsed = parse_file_config(&config, &ConfigLocation::default(), ctx.vars.as_ref()).unwrap();
    let spec = StoreSpec {
        name: "repo".into(),
        location: ConfigLocation::default(),
    };
    FileStore::open(spec, parsed, ctx).await.unwrap()
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

/// Removes the index file and its database.
fn remove_index(index: &Path) {
    let _ = std::fs::remove_file(index);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index_db_path(index).display()));
    }
}

/// Prints the absolute figures of one item store (see the module docs).
fn figures(rt: &tokio::runtime::Runtime, corpus: &Path, index: &Path, on_disk: bool, files: usize) {
    let mode = if on_disk {
        "on-disk (SQLite) index"
    } else {
        "in-memory index"
    };
    // One warm-up build for the page cache, then the measured one.
    remove_index(index);
    rt.block_on(async { store(corpus, index, on_disk).await.load().await.unwrap() });
    remove_index(index);
    let (built, build) = time(|| {
        rt.block_on(async {
            let s = store(corpus, index, on_disk).await;
            s.load().await.unwrap();
            s
        })
    });
    let stats = rt.block_on(built.last_stats());
    let (_, restart) =
        time(|| rt.block_on(async { store(corpus, index, on_disk).await.load().await.unwrap() }));
    let (_, again) = time(|| rt.block_on(built.load()).unwrap());
    let victim = corpus.join("docs/memory.md");
    let original = std::fs::read_to_string(&victim).unwrap();
    std::fs::write(&victim, format!("{original}\nOne more line.\n")).unwrap();
    let (_, changed) = time(|| rt.block_on(built.load()).unwrap());
    let after = rt.block_on(built.last_stats());
    let mut samples: Vec<Duration> = (0..500)
        .map(|i| {
            time(|| {
                rt.block_on(built.retrieve(QUERIES[i % QUERIES.len()], 3))
                    .unwrap()
            })
            .1
        })
        .collect();
    samples.sort();
    let secs = build.as_secs_f64();
    println!(
        "{mode}: file store over {files} files ({} chunks): build {:.1} ms = {:.0} files/s, {:.0} chunks/s",
        stats.chunks_total,
        secs * 1e3,
        stats.files_indexed as f64 / secs,
        stats.chunks_indexed as f64 / secs,
    );
    let share = |d: Duration| 100.0 * d.as_secs_f64() / secs;
    println!(
        "{mode}: reload unchanged: restart {:.1} ms ({:.1} % of build), running store {:.1} ms ({:.1} %); after one change {:.1} ms ({:.1} %, {} chunks re-indexed)",
        restart.as_secs_f64() * 1e3,
        share(restart),
        again.as_secs_f64() * 1e3,
        share(again),
        changed.as_secs_f64() * 1e3,
        share(changed),
        after.chunks_indexed,
    );
    println!(
        "{mode}: retrieve top 3: p50 {:.0} µs, p99 {:.0} µs",
        samples[samples.len() / 2].as_secs_f64() * 1e6,
        samples[samples.len() * 99 / 100].as_secs_f64() * 1e6
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let corpus = tempfile::tempdir().unwrap();
    let files = copy_corpus(corpus.path());
    let work = tempfile::tempdir().unwrap();
    let index = work.path().join("index.json");
    let victim = corpus.path().join("docs/memory.md");
    let original = std::fs::read_to_string(&victim).unwrap();
    for on_disk in [false, true] {
        figures(&rt, corpus.path(), &index, on_disk, files);
        std::fs::write(&victim, &original).unwrap();
    }
    let stats = rt.block_on(async {
        let s = store(corpus.path(), &index, true).await;
        s.load().await.unwrap();
        s.last_stats().await
    });

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("file_store");
    group.sample_size(10);
    group.throughput(Throughput::Elements(files as u64));
    group.bench_function("first_build_files", |b| {
        b.iter(|| {
            remove_index(&index);
            rt.block_on(async {
                store(corpus.path(), &index, true)
                    .await
                    .load()
                    .await
                    .unwrap()
            });
        });
    });
    group.throughput(Throughput::Elements(stats.chunks_total as u64));
    group.bench_function("first_build_chunks", |b| {
        b.iter(|| {
            remove_index(&index);
            rt.block_on(async {
                store(corpus.path(), &index, true)
                    .await
                    .load()
                    .await
                    .unwrap()
            });
        });
    });
    rt.block_on(async {
        store(corpus.path(), &index, true)
            .await
            .load()
            .await
            .unwrap()
    });
    group.throughput(Throughput::Elements(files as u64));
    group.bench_function("reload_unchanged_restart", |b| {
        b.iter(|| {
            rt.block_on(async {
                store(corpus.path(), &index, true)
                    .await
                    .load()
                    .await
                    .unwrap()
            })
        });
    });
    let running = rt.block_on(async {
        let s = store(corpus.path(), &index, true).await;
        s.load().await.unwrap();
        s
    });
    group.bench_function("reload_unchanged_running", |b| {
        b.iter(|| rt.block_on(running.load()).unwrap())
    });
    let mut flip = false;
    group.bench_function("reload_one_changed", |b| {
        b.iter(|| {
            flip = !flip;
            let tail = if flip {
                "\nEdited.\n"
            } else {
                "\nEdited again, longer.\n"
            };
            std::fs::write(&victim, format!("{original}{tail}")).unwrap();
            rt.block_on(running.load()).unwrap();
        });
    });
    group.throughput(Throughput::Elements(1));
    let mut i = 0;
    group.bench_function("retrieve_top3", |b| {
        b.iter(|| {
            i += 1;
            rt.block_on(running.retrieve(QUERIES[i % QUERIES.len()], 3))
                .unwrap()
        });
    });
    group.finish();
    c.final_summary();
}
