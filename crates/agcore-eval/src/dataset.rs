//! The evaluation data every loader produces: documents and queries grouped
//! into namespaces (retrieval never crosses a namespace).

use std::collections::HashSet;

use chrono::{DateTime, Utc};

/// A loaded evaluation set.
#[derive(Debug, Clone)]
pub struct Dataset {
    /// `"locomo"` or `"beir"`.
    pub kind: &'static str,
    /// One per conversation (LoCoMo) or a single one (BEIR).
    pub namespaces: Vec<Namespace>,
    /// Whether documents are turns of a conversation (in `created_at`
    /// order, grouped by the `session` metadata key), so neighbouring
    /// documents are context.
    pub sequential: bool,
    /// Relevance labels dropped: ids that name no document (and, for BEIR,
    /// qrels rows naming no query).
    pub dropped_ids: usize,
    /// Queries skipped because no relevant document was left.
    pub skipped_queries: usize,
}

impl Dataset {
    /// Number of documents over all namespaces.
    pub fn documents(&self) -> usize {
        self.namespaces.iter().map(|n| n.docs.len()).sum()
    }

    /// Number of queries scored over all namespaces.
    pub fn queries(&self) -> usize {
        self.namespaces.iter().map(|n| n.queries.len()).sum()
    }
}

/// Documents and queries that are searched together.
#[derive(Debug, Clone)]
pub struct Namespace {
    /// The namespace name (LoCoMo `sample_id`, or `beir`); memory ids are
    /// `{name}:{doc id}`.
    pub name: String,
    /// The documents.
    pub docs: Vec<Doc>,
    /// The queries, each with at least one relevant document.
    pub queries: Vec<Query>,
}

impl Namespace {
    /// The memory-id prefix of this namespace.
    pub fn prefix(&self) -> String {
        format!("{}:", self.name)
    }
}

/// One document, rendered as the memory's content.
#[derive(Debug, Clone)]
pub struct Doc {
    /// Id within the namespace (LoCoMo `dia_id`, BEIR `_id`).
    pub id: String,
    /// The memory content.
    pub content: String,
    /// The memory metadata.
    pub metadata: serde_json::Value,
    /// The memory creation time (conversation order).
    pub created_at: DateTime<Utc>,
}

/// One query with its relevant document ids.
#[derive(Debug, Clone)]
pub struct Query {
    /// The query text.
    pub text: String,
    /// Ids (within the namespace) of the relevant documents, never empty.
    pub relevant: HashSet<String>,
    /// Category label (`"1"`–`"5"` for LoCoMo, `"all"` for BEIR).
    pub category: String,
}
