//! Throughput and latency of an OpenAI-compatible embedding server through
//! `OpenAiEmbedder`, beside a bare reqwest `POST` of the same bodies (the
//! baseline: what the server alone costs).
//!
//! ```sh
//! eval "$(scripts/services.sh env)"
//! cargo run --release -p agcore-llm --example embedding_throughput
//! ```
//!
//! Reads `AGCORE_TEST_E5_BASE_URL` and `AGCORE_TEST_E5_MODEL` (or the first
//! two arguments: base URL and model). Prints sentences/s at batch 32 and the
//! p50 / p90 latency of a single query.
#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::time::{Duration, Instant};

use agcore_llm::embedding::{EmbeddingModel, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig};

const BATCH: usize = 32;
const BATCHES: usize = 8;
const QUERIES: usize = 60;

fn sentences(n: usize) -> Vec<String> {
    let stems = [
        "我上周末和妹妹去海边的青岛玩了三天",
        "The quarterly budget report is due on Friday.",
        "公司下个月要搬到新的办公楼，大家需要提前整理文件",
        "She adopted a grey cat from the shelter near the station.",
    ];
    (0..n)
        .map(|i| format!("{} ({i})", stems[i % stems.len()]))
        .collect()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[index.min(sorted.len() - 1)]
}

async fn bare_post(client: &reqwest::Client, url: &str, model: &str, input: &[String], kind: &str) {
    let body = serde_json::json!({"model": model, "input": input, "input_type": kind});
    let response = client.post(url).json(&body).send().await.unwrap();
    assert!(response.status().is_success());
    let _ = response.bytes().await.unwrap();
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let base = args
        .next()
        .or_else(|| std::env::var("AGCORE_TEST_E5_BASE_URL").ok())
        .expect("pass a base URL or set AGCORE_TEST_E5_BASE_URL");
    let model = args
        .next()
        .or_else(|| std::env::var("AGCORE_TEST_E5_MODEL").ok())
        .unwrap_or_else(|| "multilingual-e5-small-q4".to_owned());
    let config = OpenAiEmbeddingConfig::new(&base, &model)
        .with_query_mode(agcore_llm::embedding::QueryMode::input_type_query_passage())
        .with_max_batch_items(BATCH);
    let embedder = OpenAiEmbedder::connect(config).await.unwrap();
    let client = reqwest::Client::new();
    let url = format!("{}/embeddings", base.trim_end_matches('/'));
    let texts = sentences(BATCH * BATCHES);
    println!(
        "server {base}, model {model}, {} dimensions",
        embedder.dimensions()
    );

    // Throughput: BATCHES requests of BATCH sentences, alternating client and bare runs.
    let (mut ours, mut bare) = (Duration::ZERO, Duration::ZERO);
    for round in 0..2 {
        let started = Instant::now();
        let batch = embedder.embed(&texts, InputKind::Document).await.unwrap();
        assert_eq!(batch.vectors.len(), texts.len());
        let elapsed = started.elapsed();
        let started = Instant::now();
        for chunk in texts.chunks(BATCH) {
            bare_post(&client, &url, &model, chunk, "passage").await;
        }
        let bare_elapsed = started.elapsed();
        if round > 0 {
            (ours, bare) = (elapsed, bare_elapsed);
        }
    }
    let rate = |d: Duration| texts.len() as f64 / d.as_secs_f64();
    println!(
        "batch {BATCH}: OpenAiEmbedder {:.1} sentences/s, bare POST {:.1} sentences/s (ratio {:.3})",
        rate(ours),
        rate(bare),
        rate(ours) / rate(bare)
    );

    // Latency of one query.
    let queries = sentences(QUERIES);
    let (mut ours, mut bare) = (Vec::new(), Vec::new());
    for q in &queries {
        let started = Instant::now();
        embedder.embed_query(q).await.unwrap();
        ours.push(started.elapsed());
        let started = Instant::now();
        bare_post(&client, &url, &model, std::slice::from_ref(q), "query").await;
        bare.push(started.elapsed());
    }
    ours.sort();
    bare.sort();
    println!(
        "single query: OpenAiEmbedder p50 {:.2} ms p90 {:.2} ms, bare POST p50 {:.2} ms p90 {:.2} ms",
        percentile(&ours, 0.5).as_secs_f64() * 1e3,
        percentile(&ours, 0.9).as_secs_f64() * 1e3,
        percentile(&bare, 0.5).as_secs_f64() * 1e3,
        percentile(&bare, 0.9).as_secs_f64() * 1e3,
    );
}
