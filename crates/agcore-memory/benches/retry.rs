//! What the shared lock-conflict rule (`retry::retry_lock_conflicts`, on
//! backon) adds to a write transaction that succeeds at once, the common
//! case: the same ready future awaited directly and through the rule. A
//! write transaction on a database server takes milliseconds, so the
//! difference is to be read against that.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;

use agcore_memory::retry::retry_lock_conflicts;
use criterion::{Criterion, criterion_group, criterion_main};

async fn write(n: u64) -> Result<u64, String> {
    Ok(black_box(n) + 1)
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let mut group = c.benchmark_group("retry");
    group.bench_function("direct", |b| {
        b.iter(|| rt.block_on(write(black_box(1))).unwrap());
    });
    group.bench_function("retry_lock_conflicts", |b| {
        b.iter(|| {
            rt.block_on(retry_lock_conflicts(
                "bench",
                |e: &String| e == "deadlock",
                || write(black_box(1)),
            ))
            .unwrap()
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
