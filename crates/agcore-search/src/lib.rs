//! The search engine parts of agcore: text analysis, lexical scoring, rank
//! fusion, query expansion, vector indexes and near-duplicate detection.
//!
//! This crate knows nothing of memory records: it works on text, term lists,
//! ranked `(id, score)` lists and `f32` vectors. `agcore-memory` and the
//! database backends build on it, so every ranking formula and constant has
//! one home here.
//!
//! - Analysis ([`keywords`], [`analyzer`]): words split on non-alphanumerics
//!   and lowercased, English and Chinese stop words, CJK character bigrams
//!   (and unigrams for documents), Snowball English stemming; the store
//!   analyzer [`index_terms`] / [`query_terms`] and its id [`ANALYZER_ID`].
//! - Scoring ([`bm25`], [`bm25f`]): [`Bm25`] (Robertson & Zaragoza 2009)
//!   with [`DEFAULT_K1`] and [`DEFAULT_B`], the SQLite FTS5 variants the
//!   database backends rank with ([`Bm25::fts5_idf`], [`fts5_tf_part`]),
//!   [`Bm25F`] over a text and a context field (Robertson, Zaragoza &
//!   Taylor 2004), [`TextOverlap`] (Dice).
//! - [`contextual`]: [`ContextualIndex`], an in-memory BM25F index with a
//!   context field from neighbouring documents and optional RM3.
//! - [`impact`]: the storage-independent parts of an impact-ordered
//!   BM25 / BM25F index kept in a database (Anh & Moffat 2006): run codes,
//!   the block codec, batch grouping and run bounds.
//! - [`pruning`]: [`MaxScorePlan`](pruning::MaxScorePlan), top-k pruning
//!   by per-term score bounds (MaxScore, Turtle & Flood 1995).
//! - [`rm3`]: RM3 pseudo-relevance feedback settings ([`Rm3Config`];
//!   Lavrenko & Croft 2001, Abdul-Jaleel et al. 2004).
//! - [`dense_feedback`]: [`DenseFeedback`], Rocchio pseudo-relevance
//!   feedback on a query vector (Rocchio 1971; Li et al. 2023).
//! - [`fusion`]: [`fuse`] with reciprocal rank fusion (Cormack, Clarke &
//!   Büttcher 2009, [`RRF_K`]) or convex combinations of min–max,
//!   theoretical-min–max or z-score normalised scores ([`Fusion`]).
//! - [`vector`]: exact ([`FlatIndex`](vector::FlatIndex)) and HNSW
//!   ([`HnswIndex`](vector::HnswIndex); Malkov & Yashunin 2018)
//!   nearest-neighbour search by cosine, with bounded top-k selection.
//! - [`dedupe`]: near-duplicate detection by Jaccard similarity of term sets
//!   (PPJoin, Xiao et al. 2008).
//!
//! Nothing here panics on library paths or returns errors of its own:
//! out-of-range parameters are clamped (documented per item) and empty
//! input gives empty output; the top-k search of [`impact::topk`] passes on
//! the errors of the storage reads its caller supplies.
//!
//! # Examples
//!
//! ```
//! use agcore_search::{Bm25, Scorer, index_terms, query_terms};
//!
//! let docs: Vec<Vec<String>> = ["Running shoes for the marathon", "A cup of green tea"]
//!     .iter()
//!     .map(|d| index_terms(d))
//!     .collect();
//! let scores = Bm25::default().score_all(&query_terms("marathon runs"), &docs);
//! assert!(scores[0] > 0.0 && scores[1] == 0.0);
//! ```

pub mod analyzer;
pub mod bm25;
pub mod bm25f;
pub mod collection;
pub mod contextual;
pub mod dedupe;
pub mod dense_feedback;
pub mod doc_freq;
pub mod fusion;
pub mod impact;
pub mod keywords;
pub mod pruning;
pub mod rm3;
mod term_vector;
pub mod vector;

pub use analyzer::{
    ANALYZER_ID, Analyzer, KEYWORDS_ANALYZER_ID, MAX_QUERY_TERMS, capped_query_terms, index_terms,
    query_terms, rescoring_terms, unique_index_terms,
};
pub use bm25::{Bm25, DEFAULT_B, DEFAULT_K1, MAX_TF_PART, Scorer, TextOverlap, fts5_tf_part};
pub use bm25f::Bm25F;
pub use contextual::{ContextualIndex, ContextualParams, IndexDocument};
pub use dense_feedback::DenseFeedback;
pub use fusion::{Fused, Fusion, ListScore, RRF_K, fuse};
pub use keywords::{
    extract_document_keywords, extract_keywords, is_cjk, is_cjk_unigram, is_stop_word,
    unique_keywords,
};
pub use rm3::Rm3Config;
