//! Long-term memory across sessions: in session 1 the agent stores a user
//! preference with `memory_save` and the background extractor learns a fact
//! from the dialogue; in session 2 (same user, new session) prefetch puts
//! both into the system prompt's `<memory-context>` block. Another user sees
//! nothing. SQLite database in a temporary directory; scripted `MockProvider`.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example long_term_memory`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use agcore::memory::long_term::ListRequest;
use agcore::prelude::*;

const FACTS: &str = r#"{"facts": [{"content": "The user lives in Lyon", "type": "user", "tags": ["location"], "confidence": 0.9}]}"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("memory.db");
    println!("database: {}", path.display());

    // The chat model: session 1 saves a preference, then answers; session 2 answers.
    let chat = Arc::new(
        MockProvider::new()
            .push_tool_call(
                "memory_save",
                r#"{"action":"create","type":"user","name":"answer style","content":"The user prefers short answers in bullet points","description":"reply format"}"#,
            )
            .push_text("Noted: short bullet points from now on.")
            .push_text("Lyon has lovely food markets.")
            .push_text("- Parc de la Tête d'Or\n- Vieux Lyon"),
    );
    // The extraction model, asked in the background every 2 turns.
    let extractor = Arc::new(MockProvider::new().push_text(FACTS));
    let options = LongTermOptions::new()
        .extract_every(2)
        .extraction_provider(extractor);
    let agent = ChatAgent::builder()
        .shared_provider(chat.clone())
        .name("travel")
        .instructions("You are a travel assistant.")
        .memory(path.to_string_lossy())
        .long_term(options)
        .build()
        .await?;

    println!("\n== session 1 (user alice)");
    let mut first = agent.session("alice")?;
    for input in [
        "Please keep your answers short, bullet points.",
        "I live in Lyon by the way.",
    ] {
        let reply = first.submit_turn(input).await?;
        println!("user: {input}\nassistant: {}", reply.text());
    }
    for m in first.history().iter().filter(|m| m.role == Role::Tool) {
        println!("memory_save returned: {}", m.text());
    }
    let report = first.flush_memory().await?;
    println!("background extraction: {report:?}");
    let memory = agent
        .long_term_memory()
        .ok_or("long-term memory is configured")?;
    let alice = memory.scope("travel", "alice")?;
    for e in alice.list(&ListRequest::all()).await? {
        println!(
            "stored #{} [{}] {}: {}",
            e.id, e.memory_type, e.name, e.content
        );
    }

    println!("\n== session 2 (user alice, new session)");
    let mut second = agent.session("alice")?;
    let input = "Which parks in Lyon should I visit? Short answers please.";
    let reply = second.submit_turn(input).await?;
    println!("user: {input}\nassistant: {}", reply.text());
    let requests = chat.requests();
    let system = requests
        .last()
        .and_then(|r| r.messages.first().map(|m| m.text()))
        .unwrap_or_default();
    println!("\nsystem prompt of that turn:\n{system}");
    println!(
        "\nstored history holds the block: {}",
        second
            .history()
            .iter()
            .any(|m| m.text().contains("<memory-context>"))
    );

    let bob = memory.scope("travel", "bob")?;
    println!(
        "bob's search for `Lyon`: {} hits",
        bob.search("Lyon", 5).await?.len()
    );
    memory.close().await?;
    Ok(())
}
