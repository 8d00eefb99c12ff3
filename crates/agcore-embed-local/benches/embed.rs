//! all-MiniLM-L6-v2 in process: background throughput (sentences/s at batch
//! 32, beside batch 1 as the baseline) and single-query latency, on
//! real-ish English sentences of 10–25 words.
//!
//! Criterion measures `embed/batch32` and `embed/batch1` (each embedding the
//! same 64 sentences; throughput in sentences/s) and `embed/query` (one
//! query). With `--bench`, a report follows: sentences/s of both, their
//! ratio, batch 32 on one thread beside all cores, and query latency
//! p50/p99 over 200 queries.
//!
//! With the feature `onnx` and `AGCORE_TEST_ONNX_MINILM_DIR` plus
//! `ORT_DYLIB_PATH` set, the int8 ONNX model run by ONNX Runtime is measured
//! in the same run (`embed/onnx_batch32`, `embed/onnx_query`) and the report
//! gives its throughput at batch 32 and query latency beside candle's, as
//! ratios against candle.
//!
//! Needs `AGCORE_TEST_MINILM_DIR` (`scripts/models.sh install`); without it,
//! prints why and does nothing. Goals on 2 cores: ≥ 200 sentences/s at batch
//! 32, query p50 ≤ 10 ms.
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::cast_precision_loss,
    clippy::indexing_slicing
)]

use std::time::{Duration, Instant};

use agcore_embed_local::{LocalEmbedder, LocalEmbedderOptions};
use agcore_llm::embedding::{EmbeddingModel, InputKind};
use agcore_memory_testkit::corpus::{Percentiles, ms};
use criterion::{Criterion, Throughput};
use tokio::runtime::Runtime;

const SUBJECTS: &[&str] = &[
    "My sister",
    "The new project manager",
    "Our neighbour from the third floor",
    "The engineering team",
    "A friend I met at university",
    "The doctor at the local clinic",
    "My grandfather",
    "The support engineer on call",
];
const ACTIONS: &[&str] = &[
    "booked a table at the Italian restaurant",
    "finally fixed the flaky integration test",
    "drove all the way to the coast",
    "recommended a book about the history of maps",
    "complained about the noise from the building site",
    "moved the release to the second week of March",
    "started learning to play the cello",
    "asked whether the invoice had been paid",
];
const TAILS: &[&str] = &[
    "on Tuesday morning",
    "last weekend",
    "because the old one kept failing in the nightly build",
    "and said it was the best decision of the year",
    "before anyone else in the office had arrived",
    "even though it rained the whole afternoon",
];

/// Deterministic sentences of 10–25 words.
fn sentences(n: usize, seed: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let k = i * 7 + seed;
            let s = SUBJECTS[k % SUBJECTS.len()];
            let a = ACTIONS[(k / 3) % ACTIONS.len()];
            let t = TAILS[(k / 5) % TAILS.len()];
            format!("{s} {a} {t}").trim_end().to_owned() + "."
        })
        .collect()
}

fn throughput(rt: &Runtime, model: &dyn EmbeddingModel, texts: &[String], rounds: usize) -> f64 {
    rt.block_on(model.embed(texts, InputKind::Document))
        .unwrap(); // warm-up
    let started = Instant::now();
    for _ in 0..rounds {
        rt.block_on(model.embed(texts, InputKind::Document))
            .unwrap();
    }
    (texts.len() * rounds) as f64 / started.elapsed().as_secs_f64()
}

/// Single-query latency over `queries`, one at a time.
fn query_latency(rt: &Runtime, model: &dyn EmbeddingModel, queries: &[String]) -> Percentiles {
    let mut times = Vec::with_capacity(queries.len());
    for q in queries {
        let started = Instant::now();
        rt.block_on(model.embed_query(q)).unwrap();
        times.push(started.elapsed());
    }
    Percentiles::of(times)
}

/// The ONNX model at batch 32 on every core and on one thread, when the
/// feature is on and it is installed.
#[cfg(feature = "onnx")]
fn onnx_model(
    rt: &Runtime,
) -> Option<(
    agcore_embed_local::OnnxEmbedder,
    agcore_embed_local::OnnxEmbedder,
)> {
    use agcore_embed_local::{OnnxEmbedder, OnnxEmbedderOptions};
    let (Ok(dir), Ok(_)) = (
        std::env::var("AGCORE_TEST_ONNX_MINILM_DIR"),
        std::env::var("ORT_DYLIB_PATH"),
    ) else {
        eprintln!(
            "embed bench: set AGCORE_TEST_ONNX_MINILM_DIR and ORT_DYLIB_PATH \
             (scripts/models.sh install) to measure the ONNX backend"
        );
        return None;
    };
    let options = OnnxEmbedderOptions::from(LocalEmbedderOptions::new().batch_size(32));
    let all = rt.block_on(OnnxEmbedder::load_with(&dir, options)).unwrap();
    let options = OnnxEmbedderOptions::from(LocalEmbedderOptions::new().batch_size(32).threads(1));
    let one = rt.block_on(OnnxEmbedder::load_with(&dir, options)).unwrap();
    Some((all, one))
}

#[cfg(not(feature = "onnx"))]
fn onnx_model(_rt: &Runtime) -> Option<(LocalEmbedder, LocalEmbedder)> {
    None
}

fn main() {
    let Ok(dir) = std::env::var("AGCORE_TEST_MINILM_DIR") else {
        eprintln!(
            "embed bench: set AGCORE_TEST_MINILM_DIR (scripts/models.sh install); nothing to do"
        );
        return;
    };
    let rt: Runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let batch32 = rt
        .block_on(LocalEmbedder::load_with(
            &dir,
            LocalEmbedderOptions::new().batch_size(32),
        ))
        .unwrap();
    let batch1 = rt
        .block_on(LocalEmbedder::load_with(
            &dir,
            LocalEmbedderOptions::new().batch_size(1),
        ))
        .unwrap();
    let docs = sentences(64, 0);
    let words: Vec<usize> = docs.iter().map(|d| d.split_whitespace().count()).collect();
    assert!(words.iter().all(|w| (10..=25).contains(w)), "{words:?}");
    let queries = sentences(200, 3);
    let onnx = onnx_model(&rt);

    let args: Vec<String> = std::env::args().collect();
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(10));
    if !args.iter().any(|a| a == "report") {
        let mut group = c.benchmark_group("embed");
        group.sample_size(10);
        group.throughput(Throughput::Elements(docs.len() as u64));
        group.bench_function("batch32", |b| {
            b.iter(|| {
                rt.block_on(batch32.embed(&docs, InputKind::Document))
                    .unwrap()
            });
        });
        group.bench_function("batch1", |b| {
            b.iter(|| {
                rt.block_on(batch1.embed(&docs, InputKind::Document))
                    .unwrap()
            });
        });
        group.throughput(Throughput::Elements(1));
        let mut i = 0;
        group.bench_function("query", |b| {
            b.iter(|| {
                i += 1;
                rt.block_on(batch32.embed_query(&queries[i % queries.len()]))
                    .unwrap()
            });
        });
        if let Some((onnx, _)) = &onnx {
            group.throughput(Throughput::Elements(docs.len() as u64));
            group.bench_function("onnx_batch32", |b| {
                b.iter(|| rt.block_on(onnx.embed(&docs, InputKind::Document)).unwrap());
            });
            group.throughput(Throughput::Elements(1));
            group.bench_function("onnx_query", |b| {
                b.iter(|| {
                    i += 1;
                    rt.block_on(onnx.embed_query(&queries[i % queries.len()]))
                        .unwrap()
                });
            });
        }
        group.finish();
    }
    c.final_summary();
    if args.iter().any(|a| a == "--bench") && !args.iter().any(|a| a == "--list") {
        let fast = throughput(&rt, &batch32, &docs, 5);
        let slow = throughput(&rt, &batch1, &docs, 5);
        let one_thread = rt
            .block_on(LocalEmbedder::load_with(
                &dir,
                LocalEmbedderOptions::new().batch_size(32).threads(1),
            ))
            .unwrap();
        let single = throughput(&rt, &one_thread, &docs, 5);
        let latency = query_latency(&rt, &batch32, &queries);
        let latency_one = query_latency(&rt, &one_thread, &queries);
        println!(
            "\n== report: all-MiniLM-L6-v2 in process, {} sentences of 10–25 words ==",
            docs.len()
        );
        println!(
            "throughput: batch 32 {fast:.0} sentences/s | batch 1 {slow:.0} sentences/s | ratio {:.2}x",
            fast / slow
        );
        println!(
            "threads: all cores {fast:.0} sentences/s | 1 thread {single:.0} sentences/s | ratio {:.2}x",
            fast / single
        );
        println!(
            "query latency: p50 {:.2} ms | p99 {:.2} ms | mean {:.2} ms",
            ms(latency.p50),
            ms(latency.p99),
            ms(latency.mean)
        );
        println!(
            "query latency, 1 thread: p50 {:.2} ms | p99 {:.2} ms | mean {:.2} ms",
            ms(latency_one.p50),
            ms(latency_one.p99),
            ms(latency_one.mean)
        );
        if let Some((onnx, onnx_one)) = &onnx {
            let onnx_fast = throughput(&rt, onnx, &docs, 5);
            let onnx_single = throughput(&rt, onnx_one, &docs, 5);
            let onnx_latency = query_latency(&rt, onnx, &queries);
            let onnx_latency_one = query_latency(&rt, onnx_one, &queries);
            println!("-- ONNX Runtime, int8 all-MiniLM-L6-v2, same sentences --");
            println!(
                "onnx throughput: batch 32 {onnx_fast:.0} sentences/s | candle {fast:.0} sentences/s | ratio {:.2}x",
                onnx_fast / fast
            );
            println!(
                "onnx query latency: p50 {:.2} ms | p99 {:.2} ms | mean {:.2} ms | candle p50 {:.2} ms (ratio {:.2}x)",
                ms(onnx_latency.p50),
                ms(onnx_latency.p99),
                ms(onnx_latency.mean),
                ms(latency.p50),
                ms(latency.p50) / ms(onnx_latency.p50)
            );
            println!(
                "onnx 1 thread: batch 32 {onnx_single:.0} sentences/s (candle 1 thread {single:.0}, ratio {:.2}x) | query p50 {:.2} ms | p99 {:.2} ms",
                onnx_single / single,
                ms(onnx_latency_one.p50),
                ms(onnx_latency_one.p99)
            );
        }
    }
}
