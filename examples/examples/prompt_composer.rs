//! Prompt composition: templates with variables, conditionals, loops and
//! filters; a template directory; a layered system prompt rebuilt on every
//! call; a `<system-reminder>` on the user message; and the missing-variable
//! error.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example prompt_composer`
#![allow(clippy::print_stdout)]

use std::error::Error;

use agcore_prompt::{
    EnvironmentContext, PromptComposer, PromptError, PromptTemplate, PromptTemplateRegistry,
    TemplateContext,
};
use agcore_types::ChatMessage;

fn show(label: &str, messages: &[ChatMessage]) {
    println!("{label} ({} messages):", messages.len());
    for m in messages {
        println!("  [{}]", m.role);
        for line in m.text().lines() {
            println!("    {line}");
        }
    }
    println!();
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    // 1. Templates in code: variables, a conditional and a filter.
    let mut templates = PromptTemplateRegistry::new();
    templates.register(PromptTemplate::new(
        "weather",
        "今日{{ location }}天气:{{ condition }},温度{{ temperature }}\
         {% if advice is defined %}。建议:{{ advice | trim }}{% endif %}",
    )?)?;
    let rendered = templates.render(
        "weather",
        &TemplateContext::from([
            ("location", "北京"),
            ("condition", "晴"),
            ("temperature", "25°C"),
        ]),
    )?;
    println!("rendered: {rendered}");
    assert_eq!(rendered, "今日北京天气:晴,温度25°C");

    // 2. Templates from files: a directory of *.j2 / *.md files, one per name.
    let dir = tempfile::tempdir()?;
    std::fs::write(
        dir.path().join("agent.j2"),
        "You are the {{ name | title }} agent.\nYour tools:\n{% for t in tools %}\n- {{ t.name }}: {{ t.about }}\n{% endfor %}",
    )?;
    templates.load_dir(dir.path()).await?;
    println!(
        "templates: {}",
        templates.names().collect::<Vec<_>>().join(", ")
    );
    let mut ctx = TemplateContext::new().with("name", "weather");
    ctx.insert(
        "tools",
        &serde_json::json!([
            {"name": "get_weather", "about": "current weather of a city"},
            {"name": "get_forecast", "about": "the next days"},
        ]),
    )?;
    let agent_prompt = templates.render("agent", &ctx)?;

    // 3. Compose: base → agent → environment → memory context, then the conversation.
    let mut composer = PromptComposer::new()
        .system("你是一个天气助手。回答简洁。")
        .agent(agent_prompt)
        .environment(EnvironmentContext::new().with_working_directory("/srv/weather"))
        .memory_context("[user] 偏好摄氏度\n[user] 住在北京")
        .user(rendered)
        .assistant("好的,今天适合户外活动。")
        .user("明天呢?");
    let messages = composer.compose();
    show("first call", &messages);
    assert_eq!(messages.len(), 4);

    // 4. The next call sees the new layers: nothing is cached.
    composer.set_agent("You are the forecast agent.");
    composer.set_memory_context("");
    composer.append_system_reminder("Your operational mode has changed from chat to forecast.")?;
    let messages = composer.compose();
    show(
        "second call (agent switched, memory cleared, reminder added)",
        &messages,
    );
    let system = messages.first().map(ChatMessage::text).unwrap_or_default();
    assert!(system.contains("forecast agent"));
    assert!(!system.contains("memory-context"));

    // 5. A missing variable is an error that names it, never an empty string.
    match templates.render("weather", &TemplateContext::from([("location", "上海")])) {
        Err(PromptError::MissingVariable(name)) => {
            println!("missing variable reported: `{name}`");
            assert_eq!(name, "condition");
        }
        other => return Err(format!("expected a missing-variable error, got {other:?}").into()),
    }
    Ok(())
}
