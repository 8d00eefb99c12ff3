//! Integration tests: composer.
#![cfg(test)]

use agcore_prompt::{
    EnvironmentContext, PromptComposer, PromptTemplate, SystemLayer, TemplateContext,
};
use agcore_types::{ContentPart, MessageContent, Role, ToolCall};
use chrono::NaiveDate;

fn env() -> EnvironmentContext {
    EnvironmentContext::new()
        .with_working_directory("/work/demo")
        .with_platform("linux (x86_64)")
        .with_date(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap())
}

#[test]
fn layers_are_joined_in_fixed_order_regardless_of_call_order() {
    // Set the layers in reverse order: the output order must not change.
    let composer = PromptComposer::new()
        .memory_context("[user] likes tea")
        .environment(env())
        .agent("AGENT")
        .base("BASE");
    let layers: Vec<_> = composer.layers().into_iter().map(|(l, _)| l).collect();
    assert_eq!(layers, SystemLayer::ORDER);

    let system = composer.system_prompt().unwrap();
    let pos = |needle: &str| {
        system
            .find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    };
    assert!(pos("BASE") < pos("AGENT"));
    assert!(pos("AGENT") < pos("<env>"));
    assert!(pos("</env>") < pos("<memory-context>"));
    assert!(system.starts_with("BASE\n\nAGENT\n\n"));
    assert!(system.contains("Working directory: /work/demo"));
    assert!(system.contains("Today's date: 2026-11-22"));
    assert!(system.ends_with("<memory-context>\n[user] likes tea\n</memory-context>"));
}

#[test]
fn empty_layers_are_skipped() {
    let composer = PromptComposer::new()
        .base("BASE")
        .agent("   ")
        .memory_context("");
    assert_eq!(composer.system_prompt().as_deref(), Some("BASE"));
    assert_eq!(composer.layers().len(), 1);
}

#[test]
fn messages_keep_their_order_after_the_system_message() {
    let call = ToolCall::new("call_1", "get_weather", r#"{"city":"北京"}"#);
    let messages = PromptComposer::new()
        .system("你是一个天气助手")
        .user("北京天气?")
        .assistant_tool_calls(vec![call])
        .tool("call_1", r#"{"temperature":22}"#)
        .assistant("22°C,晴。")
        .user("谢谢")
        .compose();
    let roles: Vec<_> = messages.iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::System,
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::User
        ]
    );
    assert_eq!(messages[0].text(), "你是一个天气助手");
    assert_eq!(messages[3].tool_call_id.as_deref(), Some("call_1"));
    assert!(messages[2].has_tool_calls());
}

#[test]
fn layers_are_recomputed_on_every_call() {
    let mut composer = PromptComposer::new()
        .base("BASE")
        .agent("plan agent")
        .user("hi");
    let first = composer.compose();
    assert!(first[0].text().contains("plan agent"));

    composer.set_agent("build agent");
    composer.set_memory_context("<memory-context>\nnew fact\n</memory-context>");
    let second = composer.compose();
    assert!(second[0].text().contains("build agent"));
    assert!(!second[0].text().contains("plan agent"));
    assert!(second[0].text().contains("new fact"));

    composer.set_memory_context("");
    composer.set_environment(Some(env().with_entry("Mode", "build")));
    let third = composer.compose();
    assert!(!third[0].text().contains("new fact"));
    assert!(third[0].text().contains("Mode: build"));
    // The history is untouched by layer changes.
    assert_eq!(third[1..], second[1..]);
}

#[test]
fn environment_without_fixed_date_reads_the_clock_each_call() {
    let composer = PromptComposer::new().environment(EnvironmentContext::new());
    let before = chrono::Local::now().date_naive();
    let text = composer.system_prompt().unwrap();
    let after = chrono::Local::now().date_naive();
    let shown = [before, after]
        .iter()
        .any(|d| text.contains(&d.format("%Y-%m-%d").to_string()));
    assert!(shown, "{text}");
}

#[test]
fn templates_feed_the_composer() {
    let t = PromptTemplate::new(
        "agent",
        "You are the {{ name }} agent. Tools: {{ tools | join(', ') }}.",
    )
    .unwrap();
    let agent = t
        .render(
            &TemplateContext::new()
                .with("name", "research")
                .with("tools", vec!["search", "read"]),
        )
        .unwrap();
    let messages = PromptComposer::new().agent(agent).user("go").compose();
    assert_eq!(
        messages[0].text(),
        "You are the research agent. Tools: search, read."
    );
}

#[test]
fn system_reminder_is_appended_to_the_last_user_message() {
    let mut composer = PromptComposer::new()
        .base("BASE")
        .user("第一条")
        .assistant("ok")
        .user("继续");
    composer
        .append_system_reminder("Your operational mode has changed from plan to build.")
        .unwrap();
    let messages = composer.compose();
    let last = messages.last().unwrap();
    assert_eq!(
        last.content,
        Some(MessageContent::Parts(vec![
            ContentPart::Text { text: "继续".into() },
            ContentPart::Text {
                text: "<system-reminder>\nYour operational mode has changed from plan to build.\n</system-reminder>".into()
            },
        ]))
    );
    // Earlier messages and the system prompt are unchanged.
    assert_eq!(messages[1].text(), "第一条");
    assert_eq!(messages[0].text(), "BASE");
    let json = serde_json::to_value(last).unwrap();
    assert_eq!(json["content"][1]["type"], "text");
}
