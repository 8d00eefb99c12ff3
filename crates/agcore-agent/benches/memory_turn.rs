//! What long-term memory adds to a turn, on SQLite: `AgentSession::submit_turn`
//! with a model that answers at once (so the turn is the runtime's own
//! work), N memories in the user's scope among 100 scopes, in four
//! variants measured in the same run:
//!
//! - `memory_off` — the same agent without long-term memory (baseline);
//! - `memory_on` — prefetch into `<memory-context>`, usage recording and the
//!   dialogue-buffer append (extraction off);
//! - `extraction_every_turn` — as `memory_on`, plus a fact extraction started
//!   after every turn (`extract_every(1)`), which runs in the background;
//! - `maintenance` — `ScopedMemory::maintenance` over the whole scope (decay
//!   and archiving of N entries).
//!
//! N = 10 000 always; `AGCORE_BENCH_LONG_TERM_100K=1` adds N = 100 000
//! (seeding takes a minute or two). Prints p50/p99 of 400 timed turns per
//! variant and the difference to the baseline, then runs the criterion groups.
//! Goals (issue "long-term memory, finished and honest"): at most 2 ms p99
//! added by memory at 100k; maintenance of 100k entries within 2 s;
//! extraction not on the turn's path (its variant within noise of
//! `memory_on`).
#![allow(
    missing_docs,
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing
)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore_agent::turn_memory::{ExtractionModel, TurnMemory};
use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::{ChatStream, LlmError, LlmProvider, events_from_response};
use agcore_memory::long_term::{InjectConfig, LongTermMemory};
use agcore_prompt::PromptTemplateRegistry;
use agcore_types::{ChatMessage, ChatRequest, ChatResponse, FinishReason};
use async_trait::async_trait;
use criterion::Criterion;

#[path = "support/long_term.rs"]
mod support;

use support::{TOPICS, percentiles};

const TURNS: usize = 400;

/// Answers every chat request at once: fact extractions (requests with a
/// response format) with one fact, everything else with a short text.
#[derive(Debug)]
struct InstantModel;

impl InstantModel {
    fn answer(request: &ChatRequest) -> ChatResponse {
        let text = if request.response_format.is_some() {
            r#"{"facts": [{"content": "The user likes green tea", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#
        } else {
            "Noted, thank you."
        };
        ChatResponse::from_message("m", ChatMessage::assistant(text), FinishReason::Stop)
    }
}

#[async_trait]
impl LlmProvider for InstantModel {
    fn name(&self) -> &str {
        "instant"
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        Ok(Self::answer(&request))
    }

    async fn chat_stream(&self, request: ChatRequest) -> Result<ChatStream, LlmError> {
        let events = events_from_response(&Self::answer(&request));
        Ok(Box::pin(futures::stream::iter(events.into_iter().map(Ok))))
    }
}

async fn seed(n: usize, dir: &std::path::Path) -> LongTermMemory {
    support::seed(n, dir, "turn").await.0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Variant {
    Off,
    On,
    ExtractEveryTurn,
}

impl Variant {
    const ALL: [Variant; 3] = [Variant::Off, Variant::On, Variant::ExtractEveryTurn];

    fn name(self) -> &'static str {
        match self {
            Variant::Off => "memory_off",
            Variant::On => "memory_on",
            Variant::ExtractEveryTurn => "extraction_every_turn",
        }
    }
}

fn session(memory: &LongTermMemory, variant: Variant) -> AgentSession {
    let mut builder = AgentBuilder::new()
        .provider(Arc::new(InstantModel))
        .config(AgentConfig::new("m"));
    if variant != Variant::Off {
        let mut inject = InjectConfig::default();
        inject.first_round_empty = false;
        let options = LongTermOptions::new()
            .inject(inject)
            .extraction(variant == Variant::ExtractEveryTurn)
            .extract_every(1);
        builder = builder.long_term_memory(memory.clone(), options);
    }
    let bundle = builder.build().unwrap();
    AgentSession::new(Arc::new(SimpleAgent::new("bench")), bundle)
        .with_user_id("user-0")
        .unwrap()
}

fn query(i: usize) -> String {
    format!("What did I say about {} again?", TOPICS[i % TOPICS.len()])
}

fn report(rt: &tokio::runtime::Runtime, n: usize, memory: &LongTermMemory) {
    let mut rows = Vec::new();
    for variant in Variant::ALL {
        let mut s = session(memory, variant);
        let mut samples = Vec::with_capacity(TURNS);
        for i in 0..TURNS {
            // A fresh session every 20 turns keeps the history (and the
            // prompt) short, as the baseline's.
            if i % 20 == 0 {
                rt.block_on(s.finish()).unwrap();
                s = session(memory, variant);
            }
            let t = Instant::now();
            rt.block_on(s.submit_turn(query(i))).unwrap();
            samples.push(t.elapsed());
        }
        rt.block_on(s.finish()).unwrap();
        rows.push((variant, percentiles(samples)));
    }
    let (_, (base50, base99)) = rows[0];
    for (variant, (p50, p99)) in &rows {
        println!(
            "memory_turn n={n:>6} {:<22} p50 {p50:>10.3?}  p99 {p99:>10.3?}  added p50 {:>10.3?}  added p99 {:>10.3?}",
            variant.name(),
            p50.saturating_sub(base50),
            p99.saturating_sub(base99),
        );
    }
    split(rt, n, memory);
    let scope = memory.scope("bench", "user-0").unwrap();
    let mut runs = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        rt.block_on(scope.maintenance()).unwrap();
        runs.push(t.elapsed());
    }
    let (p50, worst) = percentiles(runs);
    println!("memory_turn n={n:>6} maintenance            p50 {p50:>10.3?}  max {worst:>10.3?}");
}

/// The memory steps of `memory_on` one by one, on `TurnMemory` directly (the
/// object the session calls): the prefetch (`before_turn`: search, format,
/// short-term turns) and the after-turn step (`after_turn`: the dialogue-buffer
/// append and its trim; the usage feedback it spawns runs in the background).
fn split(rt: &tokio::runtime::Runtime, n: usize, memory: &LongTermMemory) {
    let turn_memory = |session: usize| {
        let mut inject = InjectConfig::default();
        inject.first_round_empty = false;
        TurnMemory::new(
            memory.clone(),
            memory.scope("bench", "user-0").unwrap(),
            LongTermOptions::new().inject(inject).extraction(false),
            format!("split-{session}"),
            ExtractionModel {
                provider: Arc::new(InstantModel),
                model: "m".into(),
            },
            Arc::new(PromptTemplateRegistry::with_builtins().unwrap()),
        )
    };
    let (mut before, mut after) = (Vec::with_capacity(TURNS), Vec::with_capacity(TURNS));
    let mut turns = turn_memory(0);
    let mut history: Vec<ChatMessage> = Vec::new();
    for i in 0..TURNS {
        if i % 20 == 0 {
            rt.block_on(turns.finish()).unwrap();
            turns = turn_memory(i);
            history.clear();
        }
        let query = query(i);
        let t = Instant::now();
        let context = rt.block_on(turns.before_turn(&query, &history));
        before.push(t.elapsed());
        std::hint::black_box(context);
        history.push(ChatMessage::user(query));
        history.push(ChatMessage::assistant("Noted."));
        let t = Instant::now();
        rt.block_on(turns.after_turn("Noted.", &history));
        after.push(t.elapsed());
    }
    rt.block_on(turns.finish()).unwrap();
    // The search alone, with no write running beside it.
    let scoped = memory.scope("bench", "user-0").unwrap();
    let limit = LongTermOptions::new().prefetch_limit;
    let mut search = Vec::with_capacity(TURNS);
    for i in 0..TURNS {
        let t = Instant::now();
        std::hint::black_box(rt.block_on(scoped.search(&query(i), limit)).unwrap());
        search.push(t.elapsed());
    }
    for (step, samples) in [
        ("before_turn", before),
        ("after_turn", after),
        ("search alone", search),
    ] {
        let (p50, p99) = percentiles(samples);
        println!("memory_turn n={n:>6} step {step:<17} p50 {p50:>10.3?}  p99 {p99:>10.3?}");
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut sizes = vec![10_000];
    if std::env::var("AGCORE_BENCH_LONG_TERM_100K").is_ok_and(|v| v == "1") {
        sizes.push(100_000);
    }
    let mut c = Criterion::default().configure_from_args();
    for n in sizes {
        let memory = rt.block_on(seed(n, dir.path()));
        report(&rt, n, &memory);
        let mut group = c.benchmark_group(format!("memory_turn_{n}"));
        group.sample_size(30);
        for variant in Variant::ALL {
            let mut s = session(&memory, variant);
            let mut i = 0;
            group.bench_function(variant.name(), |b| {
                // Only the turns are timed, not the session changes.
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        i += 1;
                        if i % 20 == 0 {
                            rt.block_on(s.finish()).unwrap();
                            s = session(&memory, variant);
                        }
                        let t = Instant::now();
                        rt.block_on(s.submit_turn(query(i))).unwrap();
                        total += t.elapsed();
                    }
                    total
                });
            });
            rt.block_on(s.finish()).unwrap();
        }
        let scope = memory.scope("bench", "user-0").unwrap();
        group.sample_size(10);
        group.bench_function("maintenance", |b| {
            b.iter(|| rt.block_on(scope.maintenance()).unwrap());
        });
        group.finish();
    }
    c.final_summary();
}
