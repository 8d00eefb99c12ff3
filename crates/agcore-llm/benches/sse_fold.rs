//! SSE decode + fold throughput on a 1 MB streamed completion, beside the raw
//! byte-copy throughput of the same input (the baseline, first in the group).
//!
//! The input is built at start-up from the recorded OpenAI-style stream in
//! `tests/fixtures/openai_text.sse`: its first chunk, then its text-delta
//! chunks repeated in order until the body reaches 1 MiB, then its finish,
//! usage and `[DONE]` events. Each SSE event is one network chunk, as servers
//! flush them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;

use agcore_llm::{LlmError, decode_sse, fold_stream};
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

const TARGET_BYTES: usize = 1 << 20;

/// The recorded stream's events, grown to ~1 MiB; one `Bytes` per event.
fn one_megabyte_stream() -> Vec<Bytes> {
    let path = format!(
        "{}/tests/fixtures/openai_text.sse",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(path).unwrap();
    let events: Vec<String> = text.split_inclusive("\n\n").map(str::to_owned).collect();
    let is_delta = |e: &String| e.contains("\"delta\":{\"content\":");
    let first = events.iter().position(is_delta).unwrap();
    let last = events.iter().rposition(is_delta).unwrap();
    let (head, deltas, tail) = (&events[..first], &events[first..=last], &events[last + 1..]);
    let mut chunks: Vec<Bytes> = head.iter().map(|e| Bytes::from(e.clone())).collect();
    let tail_len: usize = tail.iter().map(String::len).sum();
    let mut size: usize = chunks.iter().map(Bytes::len).sum::<usize>() + tail_len;
    for event in deltas.iter().cycle() {
        if size + event.len() > TARGET_BYTES {
            break;
        }
        size += event.len();
        chunks.push(Bytes::from(event.clone()));
    }
    chunks.extend(tail.iter().map(|e| Bytes::from(e.clone())));
    chunks
}

fn bench(c: &mut Criterion) {
    let chunks = one_megabyte_stream();
    let total: usize = chunks.iter().map(Bytes::len).sum();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();

    // Sanity: the input decodes to one complete answer.
    let folded = runtime
        .block_on(fold_stream(decode_sse(futures::stream::iter(
            chunks.clone().into_iter().map(Ok::<_, LlmError>),
        ))))
        .unwrap();
    assert!(
        folded.text().len() > TARGET_BYTES / 200,
        "{} text bytes",
        folded.text().len()
    );

    let mut group = c.benchmark_group("sse_fold_1mb");
    group.throughput(Throughput::Bytes(total as u64));
    group.bench_function("byte_copy_baseline", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(total);
            for chunk in black_box(&chunks) {
                out.extend_from_slice(chunk);
            }
            black_box(out)
        });
    });
    group.bench_function("decode_sse_and_fold", |b| {
        b.iter(|| {
            let stream = futures::stream::iter(
                black_box(&chunks)
                    .clone()
                    .into_iter()
                    .map(Ok::<_, LlmError>),
            );
            black_box(runtime.block_on(fold_stream(decode_sse(stream))).unwrap())
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
