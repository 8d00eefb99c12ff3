//! MCP client: connect to a Model Context Protocol server, register its tools
//! in a `ToolRegistry` (named `<server>__<tool>`), call one, and shut the
//! server down.
//!
//! Needs a local MCP server. Point one of these at it:
//! - `AGCORE_MCP_COMMAND`: a command line speaking MCP over stdio, split on
//!   whitespace, e.g. `npx -y @modelcontextprotocol/server-everything`;
//! - `AGCORE_MCP_URL`: a streamable HTTP endpoint, e.g. `http://127.0.0.1:3001/mcp`;
//! - `AGCORE_TEST_MCP_STDIO_CMD`: the test server of `scripts/services.sh start`.
//!
//! Without one it prints how to get one and exits successfully.
//!
//! `AGCORE_MCP_COMMAND="npx -y @modelcontextprotocol/server-everything" cargo run -p agcore-examples --example mcp_client`
#![allow(clippy::print_stdout)]

use std::{error::Error, time::Duration};

use agcore_tools::{
    Tool, ToolContext, ToolRegistry,
    mcp::{McpClient, McpServerConfig},
    output_text,
};
use serde_json::json;

/// The server configured through the environment, if any.
fn configured_server() -> Option<McpServerConfig> {
    let non_empty = |var: &str| std::env::var(var).ok().filter(|v| !v.trim().is_empty());
    if let Some(command_line) = non_empty("AGCORE_MCP_COMMAND") {
        let mut words = command_line.split_whitespace();
        let command = words.next()?.to_owned();
        return Some(McpServerConfig::stdio("local", command, words));
    }
    if let Some(url) = non_empty("AGCORE_MCP_URL") {
        return Some(McpServerConfig::streamable_http("local", url));
    }
    non_empty("AGCORE_TEST_MCP_STDIO_CMD")
        .map(|command| McpServerConfig::stdio("everything", command, Vec::<String>::new()))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let Some(config) = configured_server() else {
        println!("No MCP server configured. To try this example with the reference server:");
        println!("  npm install @modelcontextprotocol/server-everything   # or use npx as below");
        println!(
            "  AGCORE_MCP_COMMAND=\"npx -y @modelcontextprotocol/server-everything\" \\\n    cargo run -p agcore-examples --example mcp_client"
        );
        println!(
            "or set AGCORE_MCP_URL to a streamable HTTP endpoint (http://127.0.0.1:PORT/mcp)."
        );
        return Ok(());
    };
    let config = config.with_call_timeout(Duration::from_secs(20));
    println!(
        "connecting to `{}` over {}",
        config.name,
        config.transport.kind()
    );

    let client = McpClient::connect(config).await?;
    if let Some(instructions) = client.instructions() {
        let first_line = instructions
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        println!("server instructions: {first_line}");
    }

    // The server's tools next to any others the agent has.
    let registry = ToolRegistry::new();
    for tool in client.tools() {
        registry.register(tool)?;
    }
    println!("{} tools:", registry.len());
    for definition in registry.definitions() {
        let description = definition.function.description.as_deref().unwrap_or("");
        println!("  {:<45} {description}", definition.function.name);
    }

    // Call `echo` when the server has it (the reference server does).
    let ctx = ToolContext::new().with_agent_name("mcp_client_example");
    if let Some(echo) = client.tool("echo") {
        let name = echo.name();
        let out = registry
            .invoke(name, json!({"message": "你好, MCP"}), &ctx)
            .await?;
        println!("{name} -> {}", output_text(&out));

        // Arguments are checked against the server's schema before sending.
        match registry.invoke(name, json!({"message": 7}), &ctx).await {
            Ok(out) => println!("{name} with a number -> {}", output_text(&out)),
            Err(err) => println!("{name} with a number -> error: {err}"),
        }
    }

    client.shutdown().await?;
    println!("server shut down");
    Ok(())
}
