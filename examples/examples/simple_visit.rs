//! One plain chat completion: send a question to the OpenAI-compatible
//! endpoint the environment names and print the reply and its token usage.
//!
//! Reads `OPENAI_BASE_URL` (e.g. `http://127.0.0.1:58080/v1` for the local
//! llama.cpp server of `scripts/services.sh start`, or
//! `https://api.openai.com/v1`), `OPENAI_API_KEY` (hosted APIs only) and
//! `AGCORE_MODEL` (default `gpt-4o-mini`). With neither a base URL nor a key
//! it says so and exits 0:
//! `OPENAI_BASE_URL=http://127.0.0.1:58080/v1 AGCORE_MODEL=smollm2 cargo run -p agcore-examples --example simple_visit`

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use agcore_llm::{CycleConfig, LlmCycle, LlmError, OpenAiProvider};

#[tokio::main]
async fn main() -> Result<(), LlmError> {
    let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
    if !set("OPENAI_BASE_URL") && !set("OPENAI_API_KEY") {
        println!(
            "simple_visit calls a real endpoint: set OPENAI_BASE_URL (a local `/v1` server) or \
             OPENAI_API_KEY (api.openai.com), and AGCORE_MODEL; then run it again."
        );
        return Ok(());
    }
    let model = std::env::var("AGCORE_MODEL").unwrap_or_else(|_| "gpt-4o-mini".into());
    let provider = Arc::new(OpenAiProvider::from_env()?);
    let mut cycle = LlmCycle::new_with_arc(
        provider,
        CycleConfig::new(model.as_str()).with_max_tokens(64),
    )
    .with_system_prompt("You answer in one short sentence.");

    let response = cycle.submit("What is the capital of France?").await?;
    println!("model: {model}");
    println!("reply: {}", response.text().trim());
    let usage = cycle.usage();
    println!(
        "usage: {} prompt + {} completion = {} tokens",
        usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
    );
    Ok(())
}
