//! Keyword retrieval: keyword extraction, scorers ([`TextOverlap`], [`Bm25`]),
//! ranking of candidate items ([`rank_items`]), the [`MemoryRetriever`], and
//! [`ContextualBm25`]: a stemmed BM25F index with contextual expansion and RM3.

mod analyzer;
mod config;
mod context_field;
mod contextual;
mod contextual_config;
mod fusion;
mod keywords;
mod memory_retriever;
mod rank;
mod rm3;
mod scorer;
mod term_vector;

pub use analyzer::{
    ANALYZER_ID, Analyzer, KEYWORDS_ANALYZER_ID, index_terms, query_terms, rescoring_terms,
    unique_index_terms,
};
pub use config::RetrieverConfig;
pub(crate) use context_field::group_value;
pub use context_field::{Bm25F, ContextField, derivation_settings};
pub use contextual::ContextualBm25;
pub use contextual_config::{ContextualBm25Config, Rm3Config};
pub use fusion::{Fused, Fusion, ListScore, fuse};
pub use keywords::{
    extract_document_keywords, extract_keywords, is_cjk, is_cjk_unigram, is_stop_word,
    unique_keywords,
};
pub use memory_retriever::{MemoryRetriever, RetrievalResult, RetrievedItem, RetrievedSource};
pub use rank::{compare_hits, rank_items, rank_items_with, top_k, validate_search_options};
pub use scorer::{Bm25, Scorer, TextOverlap};
