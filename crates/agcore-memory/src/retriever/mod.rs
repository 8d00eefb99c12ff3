//! Keyword retrieval: keyword extraction, scorers ([`TextOverlap`], [`Bm25`]),
//! ranking of candidate items ([`rank_items`]), the [`MemoryRetriever`], and
//! [`ContextualBm25`]: a stemmed BM25F index with contextual expansion and RM3.
//!
//! The analyzers, scorers, fusion and RM3 live in `agcore-search`
//! ([`agcore_search`]); they are re-exported here from their old paths.

mod config;
mod context_field;
mod contextual;
mod contextual_config;
mod memory_retriever;
mod rank;

pub use agcore_search::{
    ANALYZER_ID, Analyzer, Bm25, Bm25F, Fused, Fusion, KEYWORDS_ANALYZER_ID, ListScore, Rm3Config,
    Scorer, TextOverlap, extract_document_keywords, extract_keywords, fuse, index_terms, is_cjk,
    is_cjk_unigram, is_stop_word, query_terms, rescoring_terms, unique_index_terms,
    unique_keywords,
};
pub use config::RetrieverConfig;
pub(crate) use context_field::group_value;
pub use context_field::{ContextField, MAX_STORED_WINDOW, derivation_settings};
pub use contextual::ContextualBm25;
pub use contextual_config::ContextualBm25Config;
pub use memory_retriever::{MemoryRetriever, RetrievalResult, RetrievedItem, RetrievedSource};
pub use rank::{compare_hits, rank_items, rank_items_with, top_k, validate_search_options};
