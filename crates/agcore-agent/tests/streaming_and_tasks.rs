//! Streamed turns, and task agents planning and executing with failing steps.
#![cfg(test)]

use crate::common;

use std::sync::{Arc, Mutex};

use agcore_agent::{
    AgentConfig, AgentEvent, AgentSession, FailurePolicy, Plan, PlanningAgent, SimpleAgent,
    StepStatus, TaskAgent,
};
use agcore_llm::{CycleEvent, FnHook, HookEvent, HookExecutor, HookResult, LlmError, MockProvider};
use common::*;
use futures::StreamExt;

#[tokio::test]
async fn streamed_turn_yields_events_and_commits_like_submit_turn() {
    let script = || {
        MockProvider::new()
            .push_tool_call("add", r#"{"a":20,"b":22}"#)
            .push_sse(
                "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"It is \"},\"finish_reason\":null}]}\n\n\
                 data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"42.\"},\"finish_reason\":\"stop\"}]}\n\n\
                 data: [DONE]\n\n",
                7,
            )
    };
    let streamed_provider = Arc::new(script());
    let (registry, calls) = registry_with_add();
    let bundle = bundle(
        &streamed_provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("a")), bundle);

    let mut text = String::new();
    let mut kinds = Vec::new();
    let mut completed = None;
    {
        let mut stream = session.submit_turn_stream("what is 20+22?");
        while let Some(event) = stream.next().await {
            match event.unwrap() {
                AgentEvent::TurnStarted { turn_index } => kinds.push(format!("start:{turn_index}")),
                AgentEvent::Cycle(CycleEvent::ToolResult { message, .. }) => {
                    kinds.push(format!("tool:{}", message.text()))
                }
                AgentEvent::Cycle(event) => {
                    if let Some(delta) = event.text_delta() {
                        text.push_str(delta);
                    }
                }
                AgentEvent::TurnCompleted { response, .. } => completed = Some(response),
                _ => {}
            }
        }
    }
    assert_eq!(kinds, ["start:0", "tool:42"]);
    assert_eq!(text, "It is 42.");
    assert_eq!(completed.unwrap().text(), "It is 42.");
    assert_eq!(calls.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(session.turn_index(), 1);

    let plain_provider = Arc::new(script());
    let (registry, _) = registry_with_add();
    let bundle = common::bundle(
        &plain_provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut plain = AgentSession::new(Arc::new(SimpleAgent::new("a")), bundle);
    plain.submit_turn("what is 20+22?").await.unwrap();
    let strip = |s: &AgentSession| -> Vec<(agcore_types::Role, String)> {
        s.history().iter().map(|m| (m.role, m.text())).collect()
    };
    assert_eq!(strip(&session), strip(&plain));
}

#[tokio::test]
async fn failing_stream_leaves_history_unchanged() {
    let provider = Arc::new(MockProvider::new().push_sse(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"partial\"},\"finish_reason\":null}]}\n\n",
        5,
    ));
    let (registry, _) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut session = AgentSession::new(Arc::new(SimpleAgent::new("a")), bundle);
    let events: Vec<_> = session.submit_turn_stream("hi").collect().await;
    assert!(
        events.last().unwrap().is_err(),
        "a stream without a finish reason is an error"
    );
    assert!(session.history().is_empty());
    assert_eq!(session.turn_index(), 0);
}

fn step_indices_hook(seen: &Arc<Mutex<Vec<usize>>>) -> HookExecutor {
    let seen = Arc::clone(seen);
    let mut hooks = HookExecutor::new();
    hooks.register(
        HookEvent::OnPlanStepComplete,
        Box::new(FnHook(move |ctx: &agcore_llm::HookContext<'_>| {
            seen.lock().unwrap().push(ctx.plan_step_index.unwrap());
            HookResult::allow()
        })),
    );
    hooks
}

#[tokio::test]
async fn planning_agent_drafts_and_runs_a_plan() {
    let provider = Arc::new(
        MockProvider::new()
            .push_text("Here you go:\n```json\n{\"steps\": [{\"description\": \"look up the weather\"}, {\"description\": \"write the summary\"}]}\n```")
            .push_text("sunny")
            .push_text("It will be sunny."),
    );
    let seen = Arc::new(Mutex::new(Vec::new()));
    let (registry, _) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        step_indices_hook(&seen),
        AgentConfig::new("m"),
    );
    let mut agent = PlanningAgent::new(AgentSession::new(
        Arc::new(SimpleAgent::new("planner")),
        bundle,
    ));

    let plan = agent.run("tell me tomorrow's weather").await.unwrap();

    assert_eq!(plan.goal, "tell me tomorrow's weather");
    assert_eq!(plan.completed_count(), 2);
    assert!(
        matches!(&plan.steps[1].status, StepStatus::Completed(r) if r.text() == "It will be sunny.")
    );
    assert_eq!(*seen.lock().unwrap(), [0, 1]);
    let requests = provider.requests();
    assert!(
        requests[2]
            .messages
            .last()
            .unwrap()
            .text()
            .starts_with("Step 2 of 2: write the summary")
    );
}

#[tokio::test]
async fn failed_step_stops_or_continues_by_policy() {
    for (policy, expected) in [
        (FailurePolicy::Stop, ["completed", "failed", "skipped"]),
        (
            FailurePolicy::Continue,
            ["completed", "failed", "completed"],
        ),
    ] {
        let provider = Arc::new(
            MockProvider::new()
                .push_text("done one")
                .push_error(LlmError::InvalidRequest {
                    message: "step two is malformed".into(),
                })
                .push_text("done three"),
        );
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (registry, _) = registry_with_add();
        let bundle = bundle(
            &provider,
            registry,
            step_indices_hook(&seen),
            AgentConfig::new("m"),
        );
        let mut agent =
            PlanningAgent::new(AgentSession::new(Arc::new(SimpleAgent::new("t")), bundle))
                .with_policy(policy);
        let plan = agent
            .execute_plan(Plan::new("g", ["one", "two", "three"]))
            .await
            .unwrap();
        let states: Vec<&str> = plan.steps.iter().map(|s| s.status.name()).collect();
        assert_eq!(states, expected, "{policy:?}");
        assert!(plan.is_finished());
        let expected_hooks: Vec<usize> = if policy == FailurePolicy::Stop {
            vec![0, 1]
        } else {
            vec![0, 1, 2]
        };
        assert_eq!(*seen.lock().unwrap(), expected_hooks);
    }
}

#[tokio::test]
async fn unparseable_plan_is_a_plan_parse_error() {
    let provider = Arc::new(MockProvider::new().push_text("I would rather not plan."));
    let (registry, _) = registry_with_add();
    let bundle = bundle(
        &provider,
        registry,
        HookExecutor::new(),
        AgentConfig::new("m"),
    );
    let mut agent = PlanningAgent::new(AgentSession::new(Arc::new(SimpleAgent::new("t")), bundle));
    let err = agent.run("anything").await.unwrap_err();
    assert!(
        matches!(err, agcore_agent::AgentError::PlanParse(_)),
        "{err:?}"
    );
}
