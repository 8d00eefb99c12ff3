//! Turning an MCP `CallToolResult` into what the model reads.

use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};

use crate::ToolOutput;

/// The model-facing output of a successful call.
///
/// - `structuredContent` present: that JSON value (the MCP specification's
///   typed result; the text blocks then only repeat it).
/// - otherwise a string: the content blocks rendered by [`render_blocks`].
pub(crate) fn result_output(result: &CallToolResult) -> ToolOutput {
    match &result.structured_content {
        Some(structured) => structured.clone(),
        None => serde_json::Value::String(render_blocks(&result.content)),
    }
}

/// The message of an `isError: true` result: its text, or its structured content.
pub(crate) fn error_message(result: &CallToolResult) -> String {
    let text = render_blocks(&result.content);
    if !text.trim().is_empty() {
        return text;
    }
    match &result.structured_content {
        Some(structured) => structured.to_string(),
        None => "the server reported an error without a message".to_owned(),
    }
}

/// Renders content blocks as text, one block per line group:
///
/// - text: as is;
/// - embedded text resource: `[resource <uri>]` then its text;
/// - image, audio, embedded blob: a placeholder with MIME type and size
///   (`[image image/png, 1024 bytes base64 omitted]`): base64 is useless to a
///   text model and costs context;
/// - resource link: `[resource link <uri>: <name> — <description>]`.
pub(crate) fn render_blocks(blocks: &[ContentBlock]) -> String {
    let parts: Vec<String> = blocks.iter().map(render_block).collect();
    parts.join("\n")
}

fn render_block(block: &ContentBlock) -> String {
    match block {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Image(image) => omitted("image", &image.mime_type, image.data.len()),
        ContentBlock::Audio(audio) => omitted("audio", &audio.mime_type, audio.data.len()),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents {
                uri,
                mime_type,
                blob,
                ..
            } => format!(
                "[resource {uri}: {}, {} bytes base64 omitted]",
                mime_type.as_deref().unwrap_or("application/octet-stream"),
                blob.len()
            ),
            #[allow(unreachable_patterns)]
            other => serde_json::to_string(other).unwrap_or_default(),
        },
        ContentBlock::ResourceLink(link) => {
            let mut line = format!("[resource link {}: {}", link.uri, link.name);
            if let Some(description) = &link.description {
                line.push_str(" — ");
                line.push_str(description);
            }
            line.push(']');
            line
        }
        // Content kinds added by later protocol revisions: keep their JSON.
        #[allow(unreachable_patterns)]
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

fn omitted(kind: &str, mime_type: &str, base64_len: usize) -> String {
    format!("[{kind} {mime_type}, {base64_len} bytes base64 omitted]")
}

#[cfg(test)]
mod tests {
    use rmcp::model::Resource;
    use serde_json::json;

    use super::*;

    #[test]
    fn text_blocks_are_joined() {
        let result = CallToolResult::success(vec![
            ContentBlock::text("Echo: 你好"),
            ContentBlock::text("second"),
        ]);
        assert_eq!(result_output(&result), json!("Echo: 你好\nsecond"));
    }

    #[test]
    fn structured_content_wins() {
        let result = CallToolResult::structured(json!({"temperature": 33}));
        assert_eq!(result_output(&result), json!({"temperature": 33}));
    }

    #[test]
    fn binary_content_is_summarised() {
        let result = CallToolResult::success(vec![
            ContentBlock::image("AAAA", "image/png"),
            ContentBlock::embedded_text("file:///a.txt", "hello"),
            ContentBlock::resource_link(
                Resource::new("file:///b", "b").with_description("the b file"),
            ),
        ]);
        assert_eq!(
            result_output(&result),
            json!(
                "[image image/png, 4 bytes base64 omitted]\n[resource file:///a.txt]\nhello\n\
                 [resource link file:///b: b — the b file]"
            )
        );
    }

    #[test]
    fn error_message_falls_back_to_structured_then_default() {
        let result = CallToolResult::error(vec![ContentBlock::text("boom")]);
        assert_eq!(error_message(&result), "boom");
        let empty = CallToolResult::error(vec![]);
        assert!(error_message(&empty).contains("without a message"));
    }
}
