//! Custom tools: a typed tool whose JSON Schema comes from its argument
//! struct, a closure tool, argument validation, parallel calls with a
//! concurrency limit and timeout, and permission rules with an approver.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example custom_tool`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;
use std::time::Duration;

use agcore_tools::{
    Approval, ApprovalRequest, Approver, FnTool, InvokeOptions, PermissionChecker,
    PermissionConfig, PermissionRule, ToolContext, ToolError, ToolInvocation, ToolRegistry,
    TypedTool, output_text,
};
use agcore_types::{ToolCall, ToolExecutor};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// Arguments of `get_weather`.
#[derive(Deserialize, JsonSchema)]
struct WeatherArgs {
    /// City name, e.g. "北京".
    city: String,
}

#[derive(Serialize)]
struct Weather {
    city: String,
    temperature: i32,
    condition: &'static str,
}

struct WeatherTool;

#[async_trait]
impl TypedTool for WeatherTool {
    type Args = WeatherArgs;
    type Output = Weather;

    fn name(&self) -> &str {
        "get_weather"
    }

    fn description(&self) -> &str {
        "Current weather of a city."
    }

    async fn call(&self, args: WeatherArgs, _ctx: &ToolContext) -> Result<Weather, ToolError> {
        // A fixed table stands in for a weather service.
        let (temperature, condition) = match args.city.as_str() {
            "北京" => (22, "晴"),
            "上海" => (25, "多云"),
            _ => (18, "小雨"),
        };
        Ok(Weather {
            city: args.city,
            temperature,
            condition,
        })
    }
}

/// Arguments of `delete_file`.
#[derive(Deserialize, JsonSchema)]
struct DeleteArgs {
    /// Path of the file.
    path: String,
}

/// Says yes to paths under /tmp and no to everything else.
struct TmpOnly;

#[async_trait]
impl Approver for TmpOnly {
    async fn approve(&self, request: ApprovalRequest<'_>) -> Approval {
        let path = request.arguments["path"].as_str().unwrap_or_default();
        println!("  approver asked: {} {}", request.tool, request.arguments);
        if path.starts_with("/tmp/") {
            Approval::Approved
        } else {
            Approval::Denied(format!("{path} is outside /tmp"))
        }
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    // 1. Register: a typed tool and a closure tool. Deleting asks the approver;
    //    anything named `shell_*` is denied outright.
    let permissions = PermissionChecker::new(
        PermissionConfig::deny_list(["shell_*"]).with_rule(PermissionRule::ask("delete_file")),
    )?
    .with_approver(Arc::new(TmpOnly));
    let registry = Arc::new(
        ToolRegistry::new()
            .with_permissions(permissions)
            .with_options(
                InvokeOptions::new()
                    .with_max_concurrency(2)
                    .with_timeout(Duration::from_secs(5)),
            ),
    );
    registry.register(WeatherTool.into_tool())?;
    registry.register(Arc::new(FnTool::new(
        "delete_file",
        "Deletes a file (pretend).",
        |a: DeleteArgs, _ctx: ToolContext| async move {
            Ok::<_, ToolError>(format!("deleted {}", a.path))
        },
    )))?;
    registry.register(Arc::new(FnTool::new(
        "shell_rm",
        "Removes files with a shell command (pretend).",
        |a: DeleteArgs, _ctx: ToolContext| async move { Ok::<_, ToolError>(format!("rm {}", a.path)) },
    )))?;
    println!("tools: {:?}", registry.names());
    if let Some(def) = registry.definitions().first() {
        println!(
            "schema of {}: {}",
            def.name(),
            serde_json::to_string(&def.function.parameters)?
        );
    }

    // 2. One call.
    let ctx = ToolContext::new().with_user_id("demo-user");
    let result = registry
        .invoke("get_weather", json!({"city": "北京"}), &ctx)
        .await?;
    println!("\nget_weather(北京) -> {}", output_text(&result));

    // 3. Bad arguments are caught by the schema, with the failing path.
    match registry
        .invoke("get_weather", json!({"city": 42}), &ctx)
        .await
    {
        Err(err @ ToolError::InvalidArguments { .. }) => println!("get_weather(42) -> {err}"),
        other => return Err(format!("expected invalid arguments, got {other:?}").into()),
    }

    // 4. Many calls at once (at most 2 in flight); results keep the input order.
    let calls = ["北京", "上海", "广州"]
        .map(|city| ToolInvocation::new("get_weather", json!({"city": city})));
    let results = registry.invoke_all(calls, &ctx).await;
    println!("\ninvoke_all:");
    for r in &results {
        match r {
            Ok(v) => println!("  ok    {}", output_text(v)),
            Err(e) => println!("  error {e}"),
        }
    }
    assert_eq!(results.len(), 3);

    // 5. Permissions: ask → approver; deny-listed and unknown tools.
    println!("\npermissions:");
    for (name, args) in [
        ("delete_file", json!({"path": "/tmp/scratch.txt"})),
        ("delete_file", json!({"path": "/etc/passwd"})),
        ("shell_rm", json!({"path": "/tmp/x"})),
        ("no_such_tool", json!({})),
    ] {
        match registry.invoke(name, args.clone(), &ctx).await {
            Ok(v) => println!("  {name}({args}) -> {}", output_text(&v)),
            Err(e) => println!("  {name}({args}) -> error: {e}"),
        }
    }
    assert!(
        registry
            .permissions()
            .is_some_and(|p| p.check("shell_rm").is_err())
    );

    // 6. As the LLM tool loop sees it: a model tool call in, a tool message out.
    let call = ToolCall::new("call_1", "get_weather", r#"{"city":"上海"}"#);
    let message = registry.execute(&call).await?;
    println!("\nToolExecutor: {}", serde_json::to_string(&message)?);
    Ok(())
}
