//! Per-turn runtime overhead of `AgentSession::submit_turn`: one turn in
//! which the model calls three tools at once and then answers, on the
//! scripted `MockProvider`, beside the bare provider calls the turn makes
//! (the same two `chat` requests sent straight to the provider).
//! The difference is the runtime's own cost: prompt layers, hooks, tool
//! dispatch with schema validation, history bookkeeping.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, SimpleAgent};
use agcore_llm::{HookExecutor, LlmProvider, MockProvider, MockResponse};
use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use agcore_types::{ChatMessage, ChatRequest, ChatResponse, FinishReason, ToolCall};
use async_trait::async_trait;
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct Args {
    a: i64,
    b: i64,
}

struct Add;

#[async_trait]
impl TypedTool for Add {
    type Args = Args;
    type Output = i64;
    fn name(&self) -> &str {
        "add"
    }
    fn description(&self) -> &str {
        "Adds two integers."
    }
    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<i64, ToolError> {
        Ok(args.a + args.b)
    }
}

fn script() -> [ChatResponse; 2] {
    let calls = (0..3)
        .map(|i| ToolCall::new(format!("call_{i}"), "add", format!(r#"{{"a":{i},"b":1}}"#)))
        .collect();
    [
        ChatResponse::from_message(
            "m",
            ChatMessage::assistant_tool_calls(calls),
            FinishReason::ToolCalls,
        ),
        ChatResponse::from_message(
            "m",
            ChatMessage::assistant("1, 2 and 3."),
            FinishReason::Stop,
        ),
    ]
}

fn enqueue(provider: &MockProvider) {
    for response in script() {
        provider.enqueue(MockResponse::Response(response));
    }
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let provider = Arc::new(MockProvider::new());
    let tools = Arc::new(ToolRegistry::new());
    tools.register(Add.into_tool()).unwrap();
    let bundle = AgentBuilder::new()
        .provider(provider.clone())
        .tool_registry(tools)
        .hook_executor(Arc::new(HookExecutor::new()))
        .base_prompt("You add numbers.")
        .config(AgentConfig::new("m"))
        .build()
        .unwrap();
    let agent = Arc::new(SimpleAgent::new("adder").with_system_prompt("Use the add tool."));

    // The two requests the turn sends, for the baseline.
    enqueue(&provider);
    let mut probe = AgentSession::new(agent.clone(), Arc::clone(&bundle));
    rt.block_on(probe.submit_turn("add 0+1, 1+1, 2+1")).unwrap();
    let requests: Vec<ChatRequest> = provider.requests();
    assert_eq!(requests.len(), 2);

    let mut group = c.benchmark_group("agent_turn_3_tool_calls");
    group.bench_function("bare_provider_calls", |b| {
        b.to_async(&rt).iter_batched(
            || enqueue(&provider),
            |()| {
                let provider = provider.clone();
                let requests = requests.clone();
                async move {
                    for request in requests {
                        provider.chat(request).await.unwrap();
                    }
                }
            },
            BatchSize::SmallInput,
        );
    });
    group.bench_function("submit_turn", |b| {
        b.to_async(&rt).iter_batched(
            || {
                enqueue(&provider);
                AgentSession::new(agent.clone(), Arc::clone(&bundle))
            },
            |mut session| async move {
                session.submit_turn("add 0+1, 1+1, 2+1").await.unwrap();
                session
            },
            BatchSize::SmallInput,
        );
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
