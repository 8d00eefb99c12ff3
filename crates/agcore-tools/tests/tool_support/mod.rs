//! Tools shared by the integration tests.
#![allow(dead_code)]

use std::sync::Arc;

use agcore_tools::{FnTool, Tool, ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Arguments of the weather tool.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WeatherArgs {
    /// City name.
    pub city: String,
    /// Forecast days.
    pub days: Option<u8>,
}

/// Weather report.
#[derive(Debug, Serialize)]
pub struct Report {
    pub city: String,
    pub temp_c: i32,
}

/// A typed weather tool.
pub struct Weather;

#[async_trait]
impl TypedTool for Weather {
    type Args = WeatherArgs;
    type Output = Report;

    fn name(&self) -> &str {
        "get_weather"
    }

    fn description(&self) -> &str {
        "Current weather of a city."
    }

    async fn call(&self, args: WeatherArgs, _ctx: &ToolContext) -> Result<Report, ToolError> {
        Ok(Report {
            city: args.city,
            temp_c: 22,
        })
    }
}

/// Arguments carrying a value to echo back.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EchoArgs {
    pub value: serde_json::Value,
}

/// A tool returning its `value` argument.
pub fn echo(name: &str) -> Arc<dyn Tool> {
    Arc::new(FnTool::new(
        name,
        "Returns `value`.",
        |a: EchoArgs, _ctx: ToolContext| async move { Ok::<_, ToolError>(a.value) },
    ))
}

/// A tool that always fails.
pub fn failing() -> Arc<dyn Tool> {
    Arc::new(FnTool::new(
        "always_fails",
        "Fails.",
        |_a: EchoArgs, _ctx: ToolContext| async move {
            Err::<serde_json::Value, _>(ToolError::ExecutionFailed {
                tool: "always_fails".into(),
                message: "disk on fire".into(),
            })
        },
    ))
}
