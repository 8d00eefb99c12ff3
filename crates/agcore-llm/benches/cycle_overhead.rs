//! `LlmCycle` overhead per turn.
//!
//! A loopback HTTP server (wiremock) answers every `POST /v1/chat/completions`
//! with the same canned chat completion. The group measures, against that
//! server:
//! - `bare_reqwest_post` (baseline): one reqwest POST of the request body the
//!   cycle sends, reading the whole response body;
//! - `openai_provider_chat`: one `OpenAiProvider::chat` call of the same
//!   request (where the provider's share of the overhead shows);
//! - `llm_cycle_submit`: one `LlmCycle::submit` turn through `OpenAiProvider`
//!   (request building, hooks, retry wrapper, JSON encode/decode, usage and
//!   cost accounting).
//!
//! The figure is the ratio `llm_cycle_submit / bare_reqwest_post`; the goal is
//! an overhead under 5 % of the bare call.
//!
//! On a loaded machine the loopback timings vary by more than the overhead, so
//! a second group isolates the cycle's own CPU work: the same turn over an
//! in-process provider that answers at once (`instant_provider_chat`, the
//! baseline) beside `llm_cycle_submit_instant`. Their difference is the
//! cycle's overhead per turn, to be compared with `bare_reqwest_post`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use agcore_llm::types::{ChatMessage, ChatRequest, ChatResponse};
use agcore_llm::{
    ChatStream, CycleConfig, FnHook, HookContext, HookEvent, HookExecutor, HookResult, LlmCycle,
    LlmError, LlmProvider, ModelPrice, OpenAiConfig, OpenAiProvider, PriceTable,
};
use criterion::{Criterion, criterion_group, criterion_main};
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

const MODEL: &str = "gpt-4o-mini";
const SYSTEM: &str = "You are a concise assistant. Answer in one sentence.";
const USER: &str = "What is the capital of France, and what river runs through it?";

fn canned_completion() -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-bench-0001",
        "object": "chat.completion",
        "created": 1_732_000_000,
        "model": MODEL,
        "choices": [{
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "The capital of France is Paris, and the Seine runs through it.",
                "refusal": null,
                "annotations": []
            },
            "logprobs": null,
            "finish_reason": "stop"
        }],
        "usage": {
            "prompt_tokens": 32,
            "completion_tokens": 16,
            "total_tokens": 48,
            "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
            "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0}
        },
        "service_tier": "default",
        "system_fingerprint": "fp_bench"
    })
}

fn bench_cycle_overhead(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(async {
        let server = MockServer::start().await;
        Mock::given(method("POST"))
            .and(path("/v1/chat/completions"))
            .respond_with(ResponseTemplate::new(200).set_body_json(canned_completion()))
            .mount(&server)
            .await;
        server
    });
    let base_url = format!("{}/v1", server.uri());
    let url = format!("{base_url}/chat/completions");

    // The body the cycle sends for one turn.
    let body = serde_json::to_vec(&ChatRequest::new(
        MODEL,
        vec![ChatMessage::system(SYSTEM), ChatMessage::user(USER)],
    ))
    .unwrap();
    let client = reqwest::Client::new();

    let provider: Arc<dyn LlmProvider> =
        Arc::new(OpenAiProvider::new(OpenAiConfig::new(base_url.as_str())).unwrap());
    let hooks = Arc::new(
        HookExecutor::new()
            .with_hook(
                HookEvent::BeforeRequest,
                Box::new(FnHook(|_: &HookContext<'_>| HookResult::allow())),
            )
            .with_hook(
                HookEvent::AfterResponse,
                Box::new(FnHook(|_: &HookContext<'_>| HookResult::allow())),
            ),
    );
    let config = CycleConfig::new(MODEL)
        .with_prices(PriceTable::new().with_price(MODEL, ModelPrice::new(0.15, 0.60)));

    let mut group = c.benchmark_group("cycle_overhead");
    group.bench_function("bare_reqwest_post", |b| {
        b.to_async(&rt).iter(|| async {
            let response = client
                .post(&url)
                .header("content-type", "application/json")
                .body(body.clone())
                .send()
                .await
                .unwrap();
            assert!(response.status().is_success());
            response.bytes().await.unwrap()
        });
    });
    group.bench_function("openai_provider_chat", |b| {
        b.to_async(&rt).iter(|| async {
            let request = ChatRequest::new(
                MODEL,
                vec![ChatMessage::system(SYSTEM), ChatMessage::user(USER)],
            );
            provider.chat(request).await.unwrap()
        });
    });
    group.bench_function("llm_cycle_submit", |b| {
        b.to_async(&rt).iter(|| async {
            let mut cycle = LlmCycle::new_with_arc(Arc::clone(&provider), config.clone())
                .with_system_prompt(SYSTEM)
                .with_hooks(Arc::clone(&hooks));
            let response = cycle.submit(USER).await.unwrap();
            assert_eq!(cycle.usage().total_tokens, 48);
            response
        });
    });
    group.finish();
    drop(server);
}

/// A provider answering every request at once with a clone of one response.
struct InstantProvider(ChatResponse);

#[async_trait::async_trait]
impl LlmProvider for InstantProvider {
    fn name(&self) -> &str {
        "instant"
    }

    async fn chat(&self, request: ChatRequest) -> Result<ChatResponse, LlmError> {
        std::hint::black_box(&request);
        Ok(self.0.clone())
    }

    async fn chat_stream(&self, _request: ChatRequest) -> Result<ChatStream, LlmError> {
        Err(LlmError::Config("not used".to_owned()))
    }
}

fn bench_cycle_cpu_overhead(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let response: ChatResponse = serde_json::from_value(canned_completion()).unwrap();
    let provider: Arc<dyn LlmProvider> = Arc::new(InstantProvider(response));
    let hooks = Arc::new(
        HookExecutor::new()
            .with_hook(
                HookEvent::BeforeRequest,
                Box::new(FnHook(|_: &HookContext<'_>| HookResult::allow())),
            )
            .with_hook(
                HookEvent::AfterResponse,
                Box::new(FnHook(|_: &HookContext<'_>| HookResult::allow())),
            ),
    );
    let config = CycleConfig::new(MODEL)
        .with_prices(PriceTable::new().with_price(MODEL, ModelPrice::new(0.15, 0.60)));

    let mut group = c.benchmark_group("cycle_cpu_overhead");
    group.bench_function("instant_provider_chat", |b| {
        b.to_async(&rt).iter(|| async {
            let request = ChatRequest::new(
                MODEL,
                vec![ChatMessage::system(SYSTEM), ChatMessage::user(USER)],
            );
            provider.chat(request).await.unwrap()
        });
    });
    group.bench_function("llm_cycle_submit_instant", |b| {
        b.to_async(&rt).iter(|| async {
            let mut cycle = LlmCycle::new_with_arc(Arc::clone(&provider), config.clone())
                .with_system_prompt(SYSTEM)
                .with_hooks(Arc::clone(&hooks));
            cycle.submit(USER).await.unwrap()
        });
    });
    group.finish();
}

criterion_group!(benches, bench_cycle_overhead, bench_cycle_cpu_overhead);
criterion_main!(benches);
