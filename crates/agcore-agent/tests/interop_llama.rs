//! One agent turn end to end against a real OpenAI-compatible server (the
//! llama.cpp server with SmolLM2-135M that `scripts/services.sh start` runs):
//! the model is forced to call a tool, the runtime runs it, sends the result
//! back, and the model answers. The model is tiny: the test checks the
//! protocol and the runtime's bookkeeping, not the quality of the answer.
#![cfg(test)]
#![allow(clippy::print_stdout)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, SimpleAgent};
use agcore_llm::{CycleConfig, HookExecutor, OpenAiConfig, OpenAiProvider};
use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use agcore_types::{Role, ToolChoice};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// City name.
    city: String,
}

struct Weather {
    calls: Arc<AtomicUsize>,
}

#[async_trait]
impl TypedTool for Weather {
    type Args = WeatherArgs;
    type Output = String;
    fn name(&self) -> &str {
        "get_weather"
    }
    fn description(&self) -> &str {
        "Get the current weather for a city"
    }
    async fn call(&self, args: WeatherArgs, _ctx: &ToolContext) -> Result<String, ToolError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Ok(format!("{}: sunny, 22 degrees Celsius", args.city))
    }
}

fn server() -> Option<(String, String)> {
    let base = std::env::var("AGCORE_TEST_OPENAI_BASE_URL")
        .ok()
        .filter(|v| !v.is_empty());
    let Some(base) = base else {
        if std::env::var("AGCORE_REQUIRE_SERVICES").as_deref() == Ok("1") {
            panic!("AGCORE_TEST_OPENAI_BASE_URL is not set but AGCORE_REQUIRE_SERVICES=1");
        }
        println!("skipped: set AGCORE_TEST_OPENAI_BASE_URL (scripts/services.sh start)");
        return None;
    };
    let model = std::env::var("AGCORE_TEST_OPENAI_MODEL").unwrap_or_else(|_| "smollm2".into());
    Some((base, model))
}

#[tokio::test]
async fn tool_using_turn_end_to_end() {
    let Some((base, model)) = server() else {
        return;
    };
    let provider = OpenAiProvider::new(
        OpenAiConfig::new(base)
            .with_default_model(model.clone())
            .with_empty_content_for_tool_calls(true),
    )
    .unwrap();
    let calls = Arc::new(AtomicUsize::new(0));
    let registry = Arc::new(ToolRegistry::new());
    registry
        .register(
            Weather {
                calls: Arc::clone(&calls),
            }
            .into_tool(),
        )
        .unwrap();
    let llm = CycleConfig::new(model)
        .with_max_tokens(48)
        .with_temperature(0.0)
        .with_tool_choice(ToolChoice::function("get_weather"));
    let bundle = AgentBuilder::new()
        .provider(Arc::new(provider))
        .tool_registry(registry)
        .hook_executor(Arc::new(HookExecutor::new()))
        .base_prompt("You are a weather assistant. Use the tools.")
        .config(
            AgentConfig::new("unused")
                .with_llm(llm)
                .with_max_tool_turns(2),
        )
        .build()
        .unwrap();
    let mut session =
        AgentSession::with_id("interop", Arc::new(SimpleAgent::new("weather")), bundle);

    let response = session
        .submit_turn("What is the weather in Paris?")
        .await
        .unwrap();

    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the forced tool ran exactly once"
    );
    let roles: Vec<Role> = session.history().iter().map(|m| m.role).collect();
    assert_eq!(
        roles,
        [Role::User, Role::Assistant, Role::Tool, Role::Assistant]
    );
    let call = &session.history()[1].tool_calls[0];
    assert_eq!(call.name(), "get_weather");
    assert!(call.arguments_json().unwrap().get("city").is_some());
    assert_eq!(
        session.history()[2].tool_call_id.as_deref(),
        Some(call.id.as_str())
    );
    assert!(session.history()[2].text().contains("sunny"));
    assert!(response.message().is_some_and(|m| m.tool_calls.is_empty()));
    let usage = session.cost_so_far().total_usage();
    assert!(
        usage.prompt_tokens > 0 && usage.completion_tokens > 0,
        "{usage:?}"
    );
    assert_eq!(session.turn_index(), 1);
}
