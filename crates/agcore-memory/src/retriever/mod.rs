//! Keyword retrieval: keyword extraction, scorers ([`TextOverlap`], [`Bm25`]),
//! ranking of candidate items ([`rank_items`]) and the [`MemoryRetriever`].

mod config;
mod keywords;
mod memory_retriever;
mod rank;
mod scorer;

pub use config::RetrieverConfig;
pub use keywords::{extract_keywords, is_cjk, is_stop_word, unique_keywords};
pub use memory_retriever::{MemoryRetriever, RetrievalResult, RetrievedItem, RetrievedSource};
pub use rank::{compare_hits, rank_items, rank_items_with, top_k, validate_search_options};
pub use scorer::{Bm25, Scorer, TextOverlap};
