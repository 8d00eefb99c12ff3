//! The `retrieve` tool registered when a bundle has a [`MemoryRetriever`].

use std::sync::Arc;

use agcore_memory::retriever::{MemoryRetriever, RetrievedSource};
use agcore_prompt::untrusted::json_data;
use agcore_tools::{ToolContext, ToolError, TypedTool};
use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Longest text excerpt returned per hit, in characters.
pub const RETRIEVE_EXCERPT_CHARS: usize = 600;

/// Arguments of `retrieve`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RetrieveArgs {
    /// What to look for, in the user's words (any language).
    pub query: String,
    /// At most this many results (default: the retriever's `max_results`).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// One hit returned to the model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RetrieveHit {
    /// Memory id or page id.
    pub id: String,
    /// `"memory"` or `"page"`.
    pub kind: &'static str,
    /// Page title (pages only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Relevance score on the retriever's scorer, higher is better.
    pub score: f64,
    /// The text, cut to [`RETRIEVE_EXCERPT_CHARS`] characters.
    pub text: String,
}

/// `retrieve`: searches the bundle's memory and knowledge pages and returns
/// scored hits, best first.
///
/// The result is a JSON array of [`RetrieveHit`]s written by
/// [`json_data`](agcore_prompt::untrusted::json_data): the stored text is
/// untrusted (a wiki page or memory may hold anything), so `<`, `>`, `&` and
/// hidden characters inside it are `\uXXXX` escapes and the whole result is
/// one line — a page cannot close a block, carry a chat-template marker or
/// start a line of its own in the prompt. It parses back to the hits as they
/// are stored.
pub struct RetrieveTool {
    retriever: Arc<MemoryRetriever>,
}

impl RetrieveTool {
    /// The tool over `retriever`.
    pub fn new(retriever: Arc<MemoryRetriever>) -> Self {
        Self { retriever }
    }
}

fn excerpt(text: &str) -> String {
    match text.char_indices().nth(RETRIEVE_EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", text.get(..cut).unwrap_or(text)),
        None => text.to_owned(),
    }
}

#[async_trait]
impl TypedTool for RetrieveTool {
    type Args = RetrieveArgs;
    type Output = serde_json::Value;

    fn name(&self) -> &str {
        "retrieve"
    }

    fn description(&self) -> &str {
        "Search long-term memory and knowledge pages; returns scored results, best first."
    }

    async fn call(
        &self,
        args: RetrieveArgs,
        _ctx: &ToolContext,
    ) -> Result<serde_json::Value, ToolError> {
        let result =
            self.retriever
                .retrieve(&args.query)
                .await
                .map_err(|e| ToolError::ExecutionFailed {
                    tool: "retrieve".into(),
                    message: e.to_string(),
                })?;
        let limit = args.limit.unwrap_or(usize::MAX).max(1);
        let hits: Vec<RetrieveHit> = result
            .items
            .into_iter()
            .take(limit)
            .filter_map(|hit| {
                let score = hit.score;
                match hit.source {
                    RetrievedSource::Memory(item) => Some(RetrieveHit {
                        id: item.id,
                        kind: "memory",
                        title: None,
                        score,
                        text: excerpt(&item.content),
                    }),
                    RetrievedSource::Page(page) => Some(RetrieveHit {
                        id: page.id,
                        kind: "page",
                        title: Some(page.title),
                        score,
                        text: excerpt(&format!("{}\n{}", page.summary, page.content)),
                    }),
                    _ => None,
                }
            })
            .collect();
        let hits = serde_json::to_value(&hits).map_err(|e| ToolError::ExecutionFailed {
            tool: "retrieve".into(),
            message: format!("cannot serialize the result: {e}"),
        })?;
        // Stored text: JSON whose strings cannot hold markup or hidden
        // characters, sent to the model as it is.
        Ok(serde_json::Value::String(json_data(&hits)))
    }
}
