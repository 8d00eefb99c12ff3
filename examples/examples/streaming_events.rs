//! Streaming a turn: `AgentSession::submit_turn_stream` yields the turn's
//! events — text deltas as they arrive, tool calls, tool results — and
//! completes the turn in the history at the end.
//!
//! Offline by default (a scripted server-sent-event stream cut into 9-byte
//! chunks); set `OPENAI_BASE_URL` (and `OPENAI_API_KEY`, `AGCORE_MODEL`) to
//! stream from a real OpenAI-compatible endpoint:
//! `cargo run -p agcore-examples --example streaming_events`

#![allow(clippy::print_stdout)]

use std::io::Write;
use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentError, AgentEvent, AgentSession, SimpleAgent};
use agcore_llm::{
    CycleEvent, HookExecutor, LlmProvider, MockProvider, OpenAiProvider, StreamEvent,
};
use agcore_tools::ToolRegistry;
use futures::StreamExt;

const SCRIPT: &str = concat!(
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"mock\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Streaming \"},\"finish_reason\":null}]}\n\n",
    ": keep-alive\n\n",
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"mock\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"works, 流式输出也可以。\"},\"finish_reason\":null}]}\n\n",
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"mock\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n",
    "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"mock\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":9,\"total_tokens\":21}}\n\n",
    "data: [DONE]\n\n",
);

fn provider() -> Result<(Arc<dyn LlmProvider>, String), AgentError> {
    if std::env::var("OPENAI_BASE_URL").is_ok_and(|v| !v.is_empty()) {
        let model = std::env::var("AGCORE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
        println!(
            "streaming from {}",
            std::env::var("OPENAI_BASE_URL").unwrap_or_default()
        );
        return Ok((Arc::new(OpenAiProvider::from_env()?), model));
    }
    println!("OPENAI_BASE_URL is not set: streaming a scripted response (9-byte chunks)");
    Ok((
        Arc::new(MockProvider::new().push_sse(SCRIPT, 9)),
        "mock".into(),
    ))
}

#[tokio::main]
async fn main() -> Result<(), AgentError> {
    let (provider, model) = provider()?;
    let bundle = AgentBuilder::new()
        .provider(provider)
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(HookExecutor::new()))
        .config(AgentConfig::new(model))
        .build()?;
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("streamer")), bundle);

    let mut deltas = 0;
    {
        let mut events = session.submit_turn_stream("Say something in two languages.");
        while let Some(event) = events.next().await {
            match event? {
                AgentEvent::TurnStarted { turn_index } => println!("[turn {turn_index} started]"),
                AgentEvent::Cycle(CycleEvent::Model(StreamEvent::AssistantTextDelta { text })) => {
                    deltas += 1;
                    print!("{text}");
                    std::io::stdout().flush().ok();
                }
                AgentEvent::Cycle(CycleEvent::Model(StreamEvent::Usage(usage))) => {
                    println!(
                        "\n[usage: {} prompt + {} completion tokens]",
                        usage.prompt_tokens, usage.completion_tokens
                    );
                }
                AgentEvent::Cycle(CycleEvent::Model(StreamEvent::TurnComplete { reason })) => {
                    println!("[finish reason: {reason:?}]");
                }
                AgentEvent::TurnCompleted { response, .. } => {
                    println!(
                        "[turn completed: {} chars in {deltas} deltas]",
                        response.text().chars().count()
                    );
                }
                _ => {}
            }
        }
    }
    println!("history now holds {} messages", session.history().len());
    Ok(())
}
