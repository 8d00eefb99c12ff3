//! MCP message handling: JSON-RPC messages from a server, the conversion of
//! `tools/call` results into tool output, server configurations, and the
//! names tools are exposed under.

use std::collections::HashSet;

use agcore_tools::mcp::{MAX_TOOL_NAME_LEN, McpServerConfig, call_result_text, exposed_tool_names};
use rmcp::model::{CallToolResult, ContentBlock, ServerJsonRpcMessage};

use crate::input::parts;

fn valid_name(name: &str) -> bool {
    (1..=MAX_TOOL_NAME_LEN).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The input is read as a server message, a tool result and a server
/// configuration (JSON), and its lines as one server's tool names.
pub fn run(data: &[u8]) {
    let _ = serde_json::from_slice::<ServerJsonRpcMessage>(data);
    if let Ok(result) = serde_json::from_slice::<CallToolResult>(data) {
        let (output, message) = call_result_text(&result);
        assert!(!message.is_empty(), "an error result without a message");
        match (&result.structured_content, output) {
            (Some(structured), output) => assert_eq!(&output, structured),
            (None, serde_json::Value::String(text)) => {
                for block in &result.content {
                    if let ContentBlock::Text(t) = block {
                        assert!(text.contains(t.text.as_str()), "text block lost");
                    }
                }
            }
            (None, other) => panic!("unstructured output is not text: {other}"),
        }
    }
    if let Ok(config) = serde_json::from_slice::<McpServerConfig>(data) {
        let json = serde_json::to_string(&config).expect("a configuration serializes");
        let back: McpServerConfig =
            serde_json::from_str(&json).expect("a written configuration reads back");
        assert_eq!(back, config, "server configuration round trip");
    }

    let text = String::from_utf8_lossy(data);
    let mut lines = parts(&text, '\n', 64).into_iter();
    let server = lines.next().unwrap_or_default();
    let mut tools: Vec<&str> = lines.collect();
    let mut seen = HashSet::new();
    tools.retain(|t| seen.insert(*t));
    let names = exposed_tool_names(server, &tools);
    assert_eq!(names.len(), tools.len());
    let mut distinct = HashSet::new();
    for (name, tool) in names.iter().zip(&tools) {
        assert!(
            valid_name(name),
            "invalid exposed name {name:?} for {tool:?}"
        );
        assert!(distinct.insert(name), "two tools exposed as {name:?}");
    }
    assert_eq!(
        exposed_tool_names(server, &tools),
        names,
        "not deterministic"
    );
}
