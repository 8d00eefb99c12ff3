//! The tool-call loop of `LlmCycle` with a scripted provider.
#![cfg(test)]

use crate::cycle_support;

use std::sync::Arc;
use std::time::Duration;

use agcore_llm::types::{Role, ToolCall};
use agcore_llm::{CycleConfig, LlmCycle, LlmError, MockProvider, RetryPolicy};
use cycle_support::TestTools;

fn config() -> CycleConfig {
    CycleConfig::new("test-model").with_retry(RetryPolicy::no_retry())
}

#[tokio::test]
async fn multi_step_tool_loop() {
    let mock = Arc::new(
        MockProvider::new()
            .push_tool_call("add", r#"{"a": 2, "b": 3}"#)
            .push_tool_call("add", r#"{"a": 5, "b": 10}"#)
            .push_text("The answer is 15."),
    );
    let tools = Arc::new(TestTools::new());
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), config())
        .with_system_prompt("You add numbers.")
        .with_tools(tools.clone());
    let response = cycle.submit("What is 2+3+10?").await.unwrap();
    assert_eq!(response.text(), "The answer is 15.");
    assert_eq!(
        tools.calls(),
        vec![r#"add({"a": 2, "b": 3})"#, r#"add({"a": 5, "b": 10})"#]
    );

    let roles: Vec<Role> = cycle.messages().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        vec![
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(cycle.messages()[2].text(), "5");
    assert_eq!(cycle.messages()[2].tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(cycle.messages()[4].text(), "15");

    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    // Every request starts with the system prompt and offers the tools.
    for r in &requests {
        assert_eq!(r.messages[0].role, Role::System);
        assert_eq!(r.tools.len(), 5);
        assert_eq!(r.model, "test-model");
    }
    // The second request carries the first tool result.
    assert_eq!(requests[1].messages.len(), 4);
    assert_eq!(requests[1].messages[3].text(), "5");
    assert_eq!(requests[2].messages.len(), 6);
}

#[tokio::test]
async fn parallel_tool_calls_run_concurrently_and_keep_call_order() {
    let mock = MockProvider::new();
    let calls = vec![
        ToolCall::new(mock.call_id(), "rendezvous", r#""first""#),
        ToolCall::new(mock.call_id(), "add", r#"{"a": 1, "b": 1}"#),
        ToolCall::new(mock.call_id(), "rendezvous", r#""second""#),
    ];
    let mock = Arc::new(mock.push_tool_calls(calls).push_text("done"));
    let tools = Arc::new(TestTools::new());
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), config()).with_tools(tools.clone());
    // The two rendezvous calls only finish if they run at the same time; the
    // timeout turns a sequential implementation into a failure instead of a hang.
    let response = tokio::time::timeout(Duration::from_secs(20), cycle.submit("go"))
        .await
        .expect("tool calls were not run concurrently")
        .unwrap();
    assert_eq!(response.text(), "done");
    let results: Vec<(String, String)> = cycle.messages()[2..5]
        .iter()
        .map(|m| (m.tool_call_id.clone().unwrap(), m.text()))
        .collect();
    assert_eq!(
        results,
        vec![
            ("call_1".to_owned(), r#"met "first""#.to_owned()),
            ("call_2".to_owned(), "2".to_owned()),
            ("call_3".to_owned(), r#"met "second""#.to_owned()),
        ]
    );
}

#[tokio::test]
async fn max_tool_turns_exceeded() {
    let mut mock = MockProvider::new();
    for i in 0..3 {
        mock = mock.push_tool_call("add", format!(r#"{{"a": {i}, "b": 0}}"#));
    }
    let mock = Arc::new(mock.push_text("never reached"));
    let tools = Arc::new(TestTools::new());
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), config().with_max_tool_turns(2))
        .with_tools(tools.clone());
    let err = cycle.submit("loop").await.unwrap_err();
    assert!(
        matches!(err, LlmError::LimitExceeded(ref m) if m.contains("max_tool_turns = 2")),
        "{err}"
    );
    assert_eq!(tools.calls().len(), 2);
    assert_eq!(mock.request_count(), 3);
    // The refused answer is not kept: every tool call in the history has its result.
    let last = cycle.messages().last().unwrap();
    assert_eq!(last.role, Role::Tool);
    assert_eq!(cycle.messages().len(), 5);
}

#[tokio::test]
async fn recoverable_tool_error_goes_back_to_the_model() {
    let mock = Arc::new(
        MockProvider::new()
            .push_tool_call("fail_soft", "{}")
            .push_text("I could not do it."),
    );
    let mut cycle =
        LlmCycle::new_with_arc(mock.clone(), config()).with_tools(Arc::new(TestTools::new()));
    let response = cycle.submit("try").await.unwrap();
    assert_eq!(response.text(), "I could not do it.");
    let second = &mock.requests()[1];
    let tool_msg = second.messages.last().unwrap();
    assert_eq!(tool_msg.role, Role::Tool);
    assert_eq!(tool_msg.tool_call_id.as_deref(), Some("call_1"));
    assert_eq!(tool_msg.text(), "Error: bad input, try again");
}

#[tokio::test]
async fn fatal_tool_error_ends_the_turn() {
    let mock = MockProvider::new();
    let calls = vec![
        ToolCall::new(mock.call_id(), "add", r#"{"a": 1, "b": 2}"#),
        ToolCall::new(mock.call_id(), "fail_hard", "{}"),
    ];
    let mock = Arc::new(mock.push_tool_calls(calls).push_text("unused"));
    let mut cycle =
        LlmCycle::new_with_arc(mock.clone(), config()).with_tools(Arc::new(TestTools::new()));
    let err = cycle.submit("try").await.unwrap_err();
    match err {
        LlmError::Tool { tool, message } => {
            assert_eq!(tool, "fail_hard");
            assert_eq!(message, "permission denied");
        }
        other => panic!("expected a tool error, got {other:?}"),
    }
    assert!(
        !LlmError::Tool {
            tool: String::new(),
            message: String::new()
        }
        .is_recoverable()
    );
    assert_eq!(mock.request_count(), 1);
    assert_eq!(mock.remaining(), 1);
    // Both calls are answered in the history (call order kept).
    let tail: Vec<String> = cycle.messages()[2..].iter().map(|m| m.text()).collect();
    assert_eq!(tail, vec!["3", "Error: permission denied"]);
}

#[tokio::test]
async fn tool_calls_without_executor_are_returned() {
    let mock = Arc::new(MockProvider::new().push_tool_call("add", "{}"));
    let mut cycle = LlmCycle::new_with_arc(mock.clone(), config());
    let response = cycle.submit("hi").await.unwrap();
    assert_eq!(response.message().unwrap().tool_calls.len(), 1);
    assert!(mock.requests()[0].tools.is_empty());
}

#[tokio::test]
async fn submit_with_tools_uses_the_given_executor() {
    let mock = Arc::new(
        MockProvider::new()
            .push_tool_call("add", r#"{"a": 20, "b": 22}"#)
            .push_text("42"),
    );
    let tools = TestTools::new();
    let mut cycle = LlmCycle::new(Box::new(MockProvider::new()), config());
    cycle = LlmCycle::new_with_arc(mock.clone(), cycle.config().clone());
    let response = cycle.submit_with_tools("sum", &tools).await.unwrap();
    assert_eq!(response.text(), "42");
    assert_eq!(tools.calls().len(), 1);
}

#[test]
fn cycle_and_its_futures_are_send() {
    fn is_send<T: Send>(_: &T) {}
    let mut cycle = LlmCycle::new(Box::new(MockProvider::new()), config());
    is_send(&cycle);
    let future = cycle.submit("x");
    is_send(&future);
    drop(future);
    let stream = cycle.submit_stream("x");
    is_send(&stream);
}

#[tokio::test]
async fn forcing_tool_choice_is_reset_to_auto_after_a_tool_round() {
    use agcore_llm::types::ToolChoice;
    for (reset, expected_second) in [
        (true, ToolChoice::auto()),
        (false, ToolChoice::function("add")),
    ] {
        let provider = Arc::new(
            MockProvider::new()
                .push_tool_call("add", r#"{"a":1,"b":2}"#)
                .push_text("3"),
        );
        let config = CycleConfig::new("m")
            .with_tool_choice(ToolChoice::function("add"))
            .with_reset_tool_choice(reset);
        let mut cycle =
            LlmCycle::new_with_arc(provider.clone(), config).with_tools(Arc::new(TestTools::new()));
        cycle.submit("1+2").await.unwrap();
        let requests = provider.requests();
        assert_eq!(requests[0].tool_choice, Some(ToolChoice::function("add")));
        assert_eq!(
            requests[1].tool_choice,
            Some(expected_second),
            "reset = {reset}"
        );
    }
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("add", "{}")
            .push_text("0"),
    );
    let config = CycleConfig::new("m").with_tool_choice(ToolChoice::required());
    let mut cycle =
        LlmCycle::new_with_arc(provider.clone(), config).with_tools(Arc::new(TestTools::new()));
    cycle.submit("go").await.unwrap();
    assert_eq!(provider.requests()[1].tool_choice, Some(ToolChoice::auto()));
}
