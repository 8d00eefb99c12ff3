//! The README's quick start: an agent with a tool and long-term memory in
//! SQLite, talking to the OpenAI-compatible endpoint of the environment
//! (`OPENAI_BASE_URL`, `OPENAI_API_KEY`, `AGCORE_MODEL`), from the `agcore`
//! crate alone. Two differences from the README's program: the database is
//! `agcore-quick-start.db` in the temporary directory (or the path in
//! `AGCORE_QUICK_START_DB`) instead of `memory.db` in the working directory,
//! and a last line reports the conversation's length.
//!
//! `cargo run -p agcore-examples --example quick_start`
#![allow(clippy::print_stdout)]

use agcore::prelude::*;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Add {
    a: i64,
    b: i64,
}

async fn add(x: Add, _ctx: ToolContext) -> Result<i64, ToolError> {
    Ok(x.a + x.b)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = std::env::var("AGCORE_QUICK_START_DB").unwrap_or_else(|_| {
        let path = std::env::temp_dir().join("agcore-quick-start.db");
        path.to_string_lossy().into_owned()
    });
    let agent = ChatAgent::builder()
        .provider(OpenAiProvider::from_env()?)
        .tool(FnTool::new("add", "Adds two integers.", add))
        .memory(db)
        .build()
        .await?;
    println!("{}", agent.chat("I live in Lyon. What is 40 + 2?").await?);
    println!("history: {} messages", agent.history().await.len());
    Ok(())
}
