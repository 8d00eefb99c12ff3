//! Planning and executing a task: `JsonPlanParser` reads the model's plan,
//! `PlanningAgent` runs each step as a turn, steps move through the one-way
//! state machine, and `OnPlanStepComplete` fires after each step.
//!
//! Runs offline on the scripted `MockProvider`:
//! `cargo run -p agcore-examples --example task_agent`

#![allow(clippy::print_stdout)]

use std::sync::Arc;

use agcore_agent::{
    AgentBuilder, AgentConfig, AgentError, AgentSession, FailurePolicy, JsonPlanParser, PlanParser,
    PlanningAgent, SimpleAgent, StepStatus, TaskAgent,
};
use agcore_llm::{
    FnHook, HookContext, HookEvent, HookExecutor, HookResult, LlmError, MockProvider,
};
use agcore_tools::ToolRegistry;

#[tokio::main]
async fn main() -> Result<(), AgentError> {
    // 1. Parsing: bare JSON or a fenced block inside prose.
    let raw = "Here is my plan:\n```json\n{\"steps\": [\"collect requirements\", {\"description\": \"draft the schema\"}]}\n```";
    let plan = JsonPlanParser.parse(raw, "design a database").await?;
    println!(
        "parsed plan `{}` with {} steps",
        plan.goal,
        plan.steps.len()
    );
    match JsonPlanParser.parse("{\"steps\": []}", "nothing").await {
        Err(err) => println!("an empty plan is rejected: {err}\n"),
        Ok(_) => println!("unexpected: an empty plan parsed\n"),
    }

    // 2. Executing: the model drafts three steps; the second step fails.
    let provider = Arc::new(
        MockProvider::new()
            .push_text(r#"{"steps": [{"description": "list the tables"}, {"description": "write the migrations"}, {"description": "review"}]}"#)
            .push_text("Tables: users, orders.")
            .push_error(LlmError::InvalidRequest { message: "the migration prompt is too long".into() })
            .push_text("Review done."),
    );
    let mut hooks = HookExecutor::new();
    hooks.register(
        HookEvent::OnPlanStepComplete,
        Box::new(FnHook(|ctx: &HookContext<'_>| {
            println!(
                "  hook: step {} complete",
                ctx.plan_step_index.unwrap_or_default()
            );
            HookResult::allow()
        })),
    );
    let bundle = AgentBuilder::new()
        .provider(provider)
        .tool_registry(Arc::new(ToolRegistry::new()))
        .hook_executor(Arc::new(hooks))
        .config(AgentConfig::new("mock-model"))
        .build()?;
    let session = AgentSession::new(Arc::new(SimpleAgent::new("planner")), bundle);
    let mut agent = PlanningAgent::new(session).with_policy(FailurePolicy::Continue);

    println!("running with FailurePolicy::Continue:");
    let plan = agent.run("set up the order database").await?;
    for step in &plan.steps {
        let detail = match &step.status {
            StepStatus::Completed(response) => response.text(),
            StepStatus::Failed(err) => err.to_string(),
            _ => String::new(),
        };
        println!(
            "  step {} [{}] {} -> {}",
            step.index,
            step.status.name(),
            step.description,
            detail
        );
    }
    println!(
        "completed {}, failed {}, finished: {}",
        plan.completed_count(),
        plan.failed_count(),
        plan.is_finished()
    );

    // 3. The state machine refuses to go back.
    let mut step = agcore_agent::Step::new(0, "once");
    step.start()?;
    step.skip()?;
    if let Err(err) = step.start() {
        println!("\nillegal transition refused: {err}");
    }
    Ok(())
}
