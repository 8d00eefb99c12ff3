//! Connecting to the stdio test server named by `AGCORE_TEST_MCP_STDIO_CMD`.

use std::time::Duration;

use agcore_tools::mcp::{McpClient, McpServerConfig};

use super::{SERVER, server_command};

/// The variable holding the stdio server's command.
pub const VAR: &str = "AGCORE_TEST_MCP_STDIO_CMD";

/// A client of the stdio server with `call_timeout`; `None` (skipped) when
/// the variable is unset outside CI.
pub async fn connect(call_timeout: Duration) -> Option<McpClient> {
    let command = server_command(VAR)?;
    let config = McpServerConfig::stdio(SERVER, command, Vec::<String>::new())
        .with_call_timeout(call_timeout);
    Some(
        McpClient::connect(config)
            .await
            .expect("connect over stdio"),
    )
}
