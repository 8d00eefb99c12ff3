//! Helpers shared by the cycle tests.
#![cfg(test)]
#![allow(dead_code)]

use std::sync::Mutex;

use agcore_llm::types::{ChatMessage, ToolCall, ToolDefinition, ToolExecutionError, ToolExecutor};
use async_trait::async_trait;
use tokio::sync::Barrier;

/// A tool executor for tests: `add` sums `a` and `b`, `rendezvous` waits until
/// two calls of it are running at once, `fail_soft`/`fail_hard` fail
/// recoverably/fatally, `big` returns 5000 characters.
pub struct TestTools {
    pub calls: Mutex<Vec<String>>,
    barrier: Barrier,
}

impl TestTools {
    pub fn new() -> Self {
        Self {
            calls: Mutex::new(Vec::new()),
            barrier: Barrier::new(2),
        }
    }

    pub fn calls(&self) -> Vec<String> {
        self.calls.lock().unwrap().clone()
    }
}

#[async_trait]
impl ToolExecutor for TestTools {
    fn definitions(&self) -> Vec<ToolDefinition> {
        ["add", "rendezvous", "fail_soft", "fail_hard", "big"]
            .into_iter()
            .map(|name| {
                ToolDefinition::function(
                    name,
                    format!("test tool {name}"),
                    serde_json::json!({"type": "object"}),
                )
            })
            .collect()
    }

    async fn execute(&self, call: &ToolCall) -> Result<ChatMessage, ToolExecutionError> {
        self.calls.lock().unwrap().push(format!(
            "{}({})",
            call.function.name, call.function.arguments
        ));
        match call.function.name.as_str() {
            "add" => {
                let args: serde_json::Value = call
                    .arguments_json()
                    .map_err(|e| ToolExecutionError::recoverable("add", e.to_string()))?;
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                Ok(ChatMessage::tool(&call.id, sum.to_string()))
            }
            "rendezvous" => {
                // Only returns once both calls are in flight: sequential
                // execution would wait forever.
                self.barrier.wait().await;
                Ok(ChatMessage::tool(
                    &call.id,
                    format!("met {}", call.function.arguments),
                ))
            }
            "fail_soft" => Err(ToolExecutionError::recoverable(
                "fail_soft",
                "bad input, try again",
            )),
            "fail_hard" => Err(ToolExecutionError::fatal("fail_hard", "permission denied")),
            "big" => Ok(ChatMessage::tool(&call.id, "b".repeat(5000))),
            other => Err(ToolExecutionError::recoverable(other, "unknown tool")),
        }
    }
}
