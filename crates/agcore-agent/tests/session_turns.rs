//! Turns of an `AgentSession` driven by `MockProvider`: tool loop, parallel calls, hooks, limits, TTL, cancellation.
#![cfg(test)]

use crate::common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agcore_agent::{AgentConfig, AgentError, AgentSession, SimpleAgent};
use agcore_llm::{FnHook, HookEvent, HookExecutor, HookResult, LlmError, MockProvider};
use agcore_tools::{ToolRegistry, TypedTool};
use agcore_types::{Role, ToolCall, Usage};
use common::*;

fn agent() -> Arc<SimpleAgent> {
    Arc::new(SimpleAgent::new("calc").with_system_prompt("AGENT PROMPT"))
}

#[tokio::test]
async fn multi_step_tool_loop_runs_tools_and_keeps_history() {
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("add", r#"{"a": 2, "b": 3}"#)
            .push_tool_call("add", r#"{"a": 5, "b": 10}"#)
            .push_text_with_usage("The answer is 15.", Usage::new(30, 5)),
    );
    let (registry, calls) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(agent(), bundle);

    let response = session.submit_turn("2+3, then +10?").await.unwrap();

    assert_eq!(response.text(), "The answer is 15.");
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(session.turn_index(), 1);
    let roles: Vec<Role> = session.history().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [
            Role::User,
            Role::Assistant,
            Role::Tool,
            Role::Assistant,
            Role::Tool,
            Role::Assistant
        ]
    );
    assert_eq!(session.history()[2].text(), "5");
    assert_eq!(session.history()[4].text(), "15");
    assert_eq!(session.cost_so_far().total_usage().prompt_tokens, 30);

    let requests = provider.requests();
    assert_eq!(requests.len(), 3);
    let system = &requests[0].messages[0];
    assert_eq!(system.role, Role::System);
    let text = system.text();
    let base = text.find("BASE PROMPT").unwrap();
    let agent_layer = text.find("AGENT PROMPT").unwrap();
    assert!(
        base < agent_layer,
        "base layer comes before the agent layer: {text}"
    );
    assert_eq!(requests[0].tools.len(), 1);
}

#[tokio::test]
async fn parallel_tool_calls_run_concurrently_and_results_keep_call_order() {
    let provider = Arc::new(MockProvider::new());
    let calls = vec![
        ToolCall::new(provider.call_id(), "rendezvous", r#"{"label":"first"}"#),
        ToolCall::new(provider.call_id(), "rendezvous", r#"{"label":"second"}"#),
        ToolCall::new(provider.call_id(), "rendezvous", r#"{"label":"third"}"#),
    ];
    let ids: Vec<String> = calls.iter().map(|c| c.id.clone()).collect();
    provider.enqueue(agcore_llm::MockResponse::Response(
        agcore_types::ChatResponse::from_message(
            "m",
            agcore_types::ChatMessage::assistant_tool_calls(calls),
            agcore_types::FinishReason::ToolCalls,
        ),
    ));
    let provider = Arc::new(Arc::try_unwrap(provider).unwrap().push_text("all met"));
    let registry = Arc::new(ToolRegistry::new());
    let barrier = Arc::new(tokio::sync::Barrier::new(3));
    registry
        .register(RendezvousTool { barrier }.into_tool())
        .unwrap();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(agent(), bundle);

    session.submit_turn("meet").await.unwrap();

    let tool_messages: Vec<_> = session
        .history()
        .iter()
        .filter(|m| m.role == Role::Tool)
        .collect();
    assert_eq!(tool_messages.len(), 3);
    for (message, (id, label)) in tool_messages
        .iter()
        .zip(ids.iter().zip(["first", "second", "third"]))
    {
        assert_eq!(message.tool_call_id.as_deref(), Some(id.as_str()));
        assert_eq!(message.text(), format!("met:{label}"));
    }
}

#[tokio::test]
async fn hooks_fire_per_turn_and_a_blocking_hook_stops_the_turn() {
    let starts = Arc::new(AtomicUsize::new(0));
    let ends = Arc::new(AtomicUsize::new(0));
    let mut hooks = HookExecutor::new();
    let s = Arc::clone(&starts);
    hooks.register(
        HookEvent::OnTurnStart,
        Box::new(FnHook(move |ctx: &agcore_llm::HookContext<'_>| {
            let n = s.fetch_add(1, Ordering::SeqCst);
            assert_eq!(ctx.turn_index, Some(u32::try_from(n).unwrap()));
            if n == 2 {
                HookResult::block("quota used up")
            } else {
                HookResult::allow()
            }
        })),
    );
    let e = Arc::clone(&ends);
    hooks.register(
        HookEvent::OnTurnEnd,
        Box::new(FnHook(move |ctx: &agcore_llm::HookContext<'_>| {
            assert!(ctx.response.is_some());
            e.fetch_add(1, Ordering::SeqCst);
            HookResult::allow()
        })),
    );
    let provider = Arc::new(MockProvider::new().push_text("one").push_text("two"));
    let (registry, _) = registry_with_add();
    let bundle = bundle(&provider, registry, hooks, AgentConfig::new("m"));
    let mut session = AgentSession::new(agent(), bundle);

    session.submit_turn("a").await.unwrap();
    session.submit_turn("b").await.unwrap();
    let blocked = session.submit_turn("c").await.unwrap_err();

    assert!(
        matches!(blocked, AgentError::HookBlocked(ref r) if r == "quota used up"),
        "{blocked:?}"
    );
    assert_eq!(starts.load(Ordering::SeqCst), 3);
    assert_eq!(ends.load(Ordering::SeqCst), 2);
    assert_eq!(
        provider.request_count(),
        2,
        "a blocked turn never reaches the model"
    );
    assert_eq!(session.history().len(), 4);
}

#[tokio::test]
async fn max_turns_and_max_tool_turns_are_enforced() {
    let provider = Arc::new(
        MockProvider::new()
            .push_text("first")
            .push_tool_call("add", r#"{"a":1,"b":1}"#)
            .push_tool_call("add", r#"{"a":1,"b":1}"#),
    );
    let (registry, _) = registry_with_add();
    let config = AgentConfig::new("m")
        .with_max_turns(2)
        .with_max_tool_turns(1);
    let bundle = bundle(&provider, registry, HookExecutor::new(), config);
    let mut session = AgentSession::new(agent(), bundle);

    session.submit_turn("one").await.unwrap();
    let err = session.submit_turn("loop forever").await.unwrap_err();
    assert!(matches!(err, AgentError::LimitExceeded(_)), "{err:?}");
    assert_eq!(session.history().len(), 2, "the failed turn left no trace");
    assert_eq!(session.turn_index(), 1);

    let provider2 = Arc::new(
        MockProvider::new()
            .push_text("a")
            .push_text("b")
            .push_text("c"),
    );
    let (registry2, _) = registry_with_add();
    let bundle2 = common::bundle(
        &provider2,
        registry2,
        HookExecutor::new(),
        AgentConfig::new("m").with_max_turns(2),
    );
    let mut session2 = AgentSession::new(agent(), bundle2);
    session2.submit_turn("1").await.unwrap();
    session2.submit_turn("2").await.unwrap();
    let err = session2.submit_turn("3").await.unwrap_err();
    assert!(
        matches!(err, AgentError::LimitExceeded(ref m) if m.contains("max_turns")),
        "{err:?}"
    );
    assert_eq!(provider2.request_count(), 2);
}

#[tokio::test]
async fn session_ttl_expires() {
    let provider = Arc::new(MockProvider::new().push_text("fresh").push_text("never"));
    let (registry, _) = registry_with_add();
    let config = AgentConfig::new("m").with_session_ttl(Duration::from_millis(50));
    let bundle = bundle(&provider, registry, HookExecutor::new(), config);
    let mut session = AgentSession::new(agent(), bundle);
    session.submit_turn("hi").await.unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    let err = session.submit_turn("still there?").await.unwrap_err();
    assert!(
        matches!(err, AgentError::LimitExceeded(ref m) if m.contains("expired")),
        "{err:?}"
    );
    assert_eq!(provider.request_count(), 1);
}

#[tokio::test]
async fn a_turn_can_be_cancelled_and_the_next_one_runs() {
    let provider = Arc::new(MockProvider::new().push_pending().push_text("after"));
    let (registry, _) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(agent(), bundle);
    let token = session.cancellation_token();
    let canceller = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(20)).await;
        token.cancel();
    });
    let err = session.submit_turn("wait forever").await.unwrap_err();
    canceller.await.unwrap();
    assert!(matches!(err, AgentError::Cancelled), "{err:?}");
    assert!(session.history().is_empty());
    assert_eq!(session.submit_turn("again").await.unwrap().text(), "after");
}

#[tokio::test]
async fn provider_errors_propagate_with_recoverability() {
    let provider = Arc::new(MockProvider::new().push_error(LlmError::Authentication {
        message: "bad key".into(),
    }));
    let (registry, _) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(agent(), bundle);
    let err = session.submit_turn("hi").await.unwrap_err();
    assert!(matches!(
        err,
        AgentError::Llm(LlmError::Authentication { .. })
    ));
    assert!(!err.is_recoverable());
}

#[tokio::test]
async fn allow_list_hides_and_refuses_other_tools() {
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("add", r#"{"a":1,"b":2}"#)
            .push_text("could not add"),
    );
    let (registry, calls) = registry_with_add();
    registry.register(WhoAmITool.into_tool()).unwrap();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let restricted = Arc::new(SimpleAgent::new("reader").with_allowed_tools(["whoami"]));
    let mut session = AgentSession::new(restricted, bundle);
    session.submit_turn("add please").await.unwrap();
    let requests = provider.requests();
    let names: Vec<&str> = requests[0].tools.iter().map(|t| t.name()).collect();
    assert_eq!(names, ["whoami"]);
    assert_eq!(calls.load(Ordering::SeqCst), 0);
    assert!(
        session.history()[2]
            .text()
            .contains("not available to agent `reader`")
    );
}

#[tokio::test]
async fn tools_receive_the_session_scope() {
    let provider = Arc::new(
        MockProvider::new()
            .push_tool_call("whoami", "{}")
            .push_text("ok"),
    );
    let registry = Arc::new(ToolRegistry::new());
    registry.register(WhoAmITool.into_tool()).unwrap();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::with_id("s-42", agent(), bundle)
        .with_user_id("alice")
        .unwrap();
    session.submit_turn("who am I").await.unwrap();
    assert_eq!(
        session.history()[2].text(),
        "session=s-42 user=alice agent=calc"
    );
}
