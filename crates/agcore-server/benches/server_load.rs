//! Load bench of `agcore serve`: 100,000 memories in SQLite, concurrent
//! clients over loopback, p50 / p99 / requests per second for HTTP search,
//! HTTP save and MCP `memory_recall`, beside in-process search as the baseline.
//!
//! Each operation runs with one client (latency) and with CLIENTS clients
//! (throughput). `cargo bench -p agcore-server --bench server_load [-- MEMORIES CLIENTS SECONDS]`
//! (defaults 100000 32 5).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::print_stdout,
    missing_docs
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::memory::long_term::{MemoryEntry, MemoryScope, ScopedMemory, SearchRequest};
use agcore_server::{AppState, Grant, KeyStore, Limits};
use serde_json::json;

const WORDS: &[&str] = &[
    "coffee", "tea", "garden", "bike", "python", "rust", "travel", "paris", "tokyo", "music",
    "piano", "dog", "cat", "budget", "meeting", "deadline", "report", "doctor", "running", "book",
    "movie", "recipe", "pasta", "sushi", "family", "birthday", "project", "server", "memory",
    "agent",
];

fn text(n: usize) -> String {
    let pick = |k: usize| WORDS[(n.wrapping_mul(2654435761).wrapping_add(k * 97)) % WORDS.len()];
    format!(
        "note {n}: the user mentioned {} and {} near {} ({})",
        pick(1),
        pick(2),
        pick(3),
        pick(4)
    )
}

fn entry(scope: &MemoryScope, n: usize) -> MemoryEntry {
    let value = json!({"id": 0, "agent_name": scope.agent(), "user_id": scope.user(), "memory_type": "user",
        "name": format!("note {n}"), "content": text(n), "description": "", "metadata": {}, "tags": [],
        "weight": 1.0, "archived": false, "use_count": 0, "last_used_at": null,
        "weight_updated_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z"});
    serde_json::from_value(value).unwrap()
}

fn percentiles(mut micros: Vec<u64>) -> (f64, f64) {
    micros.sort_unstable();
    let at = |q: f64| {
        micros
            .get(((micros.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0) as f64
            / 1e3
    };
    (at(0.5), at(0.99))
}

async fn load<F, Fut>(clients: usize, seconds: u64, make: F) -> (f64, f64, f64)
where
    F: Fn(usize) -> Fut + Send + Sync + Clone + 'static,
    Fut: std::future::Future<Output = ()> + Send,
{
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let started = Instant::now();
    let mut tasks = Vec::new();
    for c in 0..clients {
        let make = make.clone();
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::new();
            let mut n = c;
            while Instant::now() < deadline {
                let t = Instant::now();
                make(n).await;
                times.push(t.elapsed().as_micros() as u64);
                n += clients;
            }
            times
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.unwrap());
    }
    let rate = all.len() as f64 / started.elapsed().as_secs_f64();
    let (p50, p99) = percentiles(all);
    (p50, p99, rate)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let memories = args.first().copied().unwrap_or(100_000);
    let clients = args.get(1).copied().unwrap_or(32);
    let seconds = args.get(2).copied().unwrap_or(5) as u64;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(memories, clients, seconds));
}

/// One round of every operation with `clients` concurrent clients, printed
/// as a table, with the HTTP search's overhead over in-process search.
async fn round(
    scoped: &ScopedMemory,
    http: &reqwest::Client,
    addr: std::net::SocketAddr,
    key: &str,
    clients: usize,
    seconds: u64,
) {
    println!("\n{clients} concurrent clients, {seconds} s each; latencies in ms");
    println!("| operation | p50 | p99 | req/s |\n|---|---|---|---|");
    let s = scoped.clone();
    let base = load(clients, seconds, move |n| {
        let s = s.clone();
        async move {
            s.search(WORDS[n % WORDS.len()], 10).await.unwrap();
        }
    })
    .await;
    println!(
        "| in-process search (baseline) | {:.3} | {:.3} | {:.0} |",
        base.0, base.1, base.2
    );

    // What the HTTP search runs: the breakdown over the hybrid stage's
    // candidates (50), not the bare top 10 of the row above.
    let s = scoped.clone();
    let explained = load(clients, seconds, move |n| {
        let s = s.clone();
        async move {
            let request = SearchRequest::top_k(10);
            s.search_explained(WORDS[n % WORDS.len()], &request)
                .await
                .unwrap();
        }
    })
    .await;
    println!(
        "| in-process search with breakdown (same work as HTTP) | {:.3} | {:.3} | {:.0} |",
        explained.0, explained.1, explained.2
    );

    let (h, k) = (http.clone(), key.to_owned());
    let search = load(clients, seconds, move |n| {
        let (h, k) = (h.clone(), k.clone());
        async move {
            let r = h
                .get(format!(
                    "http://{addr}/v1/memories/search?q={}&limit=10",
                    WORDS[n % WORDS.len()]
                ))
                .bearer_auth(&k)
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success());
            r.bytes().await.unwrap();
        }
    })
    .await;
    println!(
        "| HTTP search | {:.3} | {:.3} | {:.0} |",
        search.0, search.1, search.2
    );

    let (h, k) = (http.clone(), key.to_owned());
    let save = load(clients, seconds, move |n| {
        let (h, k) = (h.clone(), k.clone());
        async move {
            let r = h
                .post(format!("http://{addr}/v1/memories"))
                .bearer_auth(&k)
                .json(&json!({"content": format!("fresh {n} {}", text(n))}))
                .send()
                .await
                .unwrap();
            assert!(r.status().is_success());
            r.bytes().await.unwrap();
        }
    })
    .await;
    println!(
        "| HTTP save | {:.3} | {:.3} | {:.0} |",
        save.0, save.1, save.2
    );

    let (h, k) = (http.clone(), key.to_owned());
    let mcp = load(clients, seconds, move |n| {
        let (h, k) = (h.clone(), k.clone());
        async move {
            let body = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "memory_recall", "arguments": {"query": WORDS[n % WORDS.len()]}}});
            let r = h.post(format!("http://{addr}/mcp")).bearer_auth(&k)
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-06-18")
                .json(&body).send().await.unwrap();
            assert!(r.status().is_success());
            let answer: serde_json::Value = r.json().await.unwrap();
            assert!(
                answer["result"]["content"].is_array() && answer["result"]["isError"] != json!(true),
                "memory_recall failed: {answer}"
            );
        }
    })
    .await;
    println!(
        "| MCP memory_recall (streamable HTTP) | {:.3} | {:.3} | {:.0} |",
        mcp.0, mcp.1, mcp.2
    );
    println!(
        "HTTP search / in-process search with breakdown: p50 x{:.2}, throughput x{:.2}",
        search.0 / explained.0,
        explained.2 / search.2
    );
}

async fn run(memories: usize, clients: usize, seconds: u64) {
    let dir = tempfile::tempdir().unwrap();
    let url = dir.path().join("bench.db").display().to_string();
    let storage = agcore::memory::open(&url).await.unwrap();
    let memory = storage.long_term().unwrap();
    let scope = MemoryScope::new("bench", "user").unwrap();
    let scoped = memory.scoped(scope.clone());
    let seeded = Instant::now();
    for start in (0..memories).step_by(5_000) {
        let batch = (start..(start + 5_000).min(memories))
            .map(|n| entry(&scope, n))
            .collect();
        scoped.import_entries(batch).await.unwrap();
    }
    println!(
        "seeded {memories} memories in SQLite in {:.1} s",
        seeded.elapsed().as_secs_f64()
    );

    let limits = Limits {
        requests_per_second: 10_000_000,
        burst: 10_000_000,
        ..Limits::default()
    };
    let state = Arc::new(AppState::new(memory.clone(), KeyStore::in_memory()).with_limits(limits));
    let key = state.keys.create(&Grant::Scope(scope.clone())).unwrap().0;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(agcore_server::serve(listener, Arc::clone(&state), async {
        let _ = stopped.await;
    }));
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(clients)
        .build()
        .unwrap();

    // Latency alone (one client), then throughput under load: with N
    // clients in a closed loop, p50 is about N / throughput (Little's law).
    for c in [1, clients] {
        round(&scoped, &http, addr, &key, c, seconds).await;
    }
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
}
