//! Shared helpers of the MCP integration tests: server discovery and process checks.

#![allow(dead_code)]

pub mod stdio;

use std::{sync::Arc, time::Duration};

use agcore_tools::{
    Tool, ToolError,
    mcp::{McpClient, McpTool},
};

/// The server's name in the tests (tools are `everything__<tool>`).
pub const SERVER: &str = "everything";

/// Upper bound for anything that must not hang (a dead server, a timed-out call).
pub const NO_HANG: Duration = Duration::from_secs(30);

/// The command in `var`, or `None` after printing the skip line; panics when
/// `AGCORE_REQUIRE_SERVICES=1` and the variable is missing.
pub fn server_command(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Some(value),
        _ => {
            assert!(
                std::env::var("AGCORE_REQUIRE_SERVICES").as_deref() != Ok("1"),
                "{var} is not set but AGCORE_REQUIRE_SERVICES=1 (run scripts/services.sh start)"
            );
            #[allow(clippy::print_stdout)]
            {
                println!("skipped: set {var} (scripts/services.sh start)");
            }
            None
        }
    }
}

/// The tool whose server-side name is one of `names` (names differ across
/// versions of server-everything, e.g. `add` / `get-sum`).
pub fn find_tool(client: &McpClient, names: &[&str]) -> Arc<McpTool> {
    let tools = client.mcp_tools();
    names
        .iter()
        .find_map(|name| tools.iter().find(|tool| tool.remote_name() == *name))
        .cloned()
        .unwrap_or_else(|| {
            let listed: Vec<&str> = tools.iter().map(|tool| tool.remote_name()).collect();
            panic!("none of {names:?} among the server's tools {listed:?}")
        })
}

/// Checks the listing: every tool is named `everything__…`, valid for model
/// APIs, with an object schema; `echo` takes a `message`.
pub fn check_listing(client: &McpClient) {
    let tools = client.tools();
    assert!(
        tools.len() >= 3,
        "expected the server's tools, got {}",
        tools.len()
    );
    for tool in &tools {
        let name = tool.name();
        assert!(name.starts_with("everything__"), "{name}");
        assert!(name.len() <= 64, "{name}");
        assert!(
            name.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
            "{name}"
        );
        assert_eq!(tool.parameters()["type"], "object", "{name}");
        assert!(!tool.description().is_empty(), "{name}");
    }
    let echo = find_tool(client, &["echo"]);
    assert_eq!(echo.name(), "everything__echo");
    assert!(echo.parameters()["properties"]["message"].is_object());
}

/// Whether a live (non-zombie) process with this id exists.
pub fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        // Field 3, after the parenthesised command name, is the state.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
    }
}

/// Whether a process with this id exists at all (zombies included).
pub fn process_exists(pid: u32) -> bool {
    std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// Sends `SIGKILL` to the process group `pgid`.
pub fn kill_group(pgid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -KILL -{pgid} failed");
}

/// Waits up to [`NO_HANG`] for `condition`.
pub async fn eventually(mut condition: impl FnMut() -> bool) -> bool {
    let deadline = tokio::time::Instant::now() + NO_HANG;
    while tokio::time::Instant::now() < deadline {
        if condition() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    condition()
}

/// Asserts that `err` is the error server-everything's `echo` gives for a
/// non-string `message`: an argument or execution error naming the field and
/// the expected type.
pub fn assert_echo_argument_error(err: &ToolError) {
    match err {
        ToolError::InvalidArguments { tool, message, .. }
        | ToolError::ExecutionFailed { tool, message } => {
            assert_eq!(tool, "everything__echo");
            assert!(
                message.contains("message"),
                "the failing field is named: {message}"
            );
            assert!(message.to_lowercase().contains("string"), "{message}");
        }
        other => panic!("expected an argument error, got {other:?}"),
    }
}
