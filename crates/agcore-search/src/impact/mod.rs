//! The storage-independent parts of an impact-ordered BM25 / BM25F index
//! (Anh & Moffat 2006, "Pruned query evaluation using pre-computed
//! impacts", SIGIR), kept by a database backend in its own tables.
//!
//! A posting is `(key length, document)` ([`Posting`]). Postings are kept in
//! *runs*, one per (term, run code): the run code ([`run_code`]) packs the
//! term frequency bucket of the own text and of the context field (a second
//! BM25F field, see [`FieldDoc`]); a run is read shortest key length first
//! and, within one length, by document, so the term's contribution only
//! falls along a run and the next posting bounds everything after it
//! exactly. Runs are stored as blocks of at most [`BLOCK_DOCS`] postings of
//! one key length ([`encode_postings`] / [`decode_postings`]).
//!
//! - [`layout`]: run codes, postings and their block codec ([`run_code`],
//!   [`encode_postings`]), [`FieldDoc`], [`ScopeStats`].
//! - [`blocks`]: which blocks a write stores — documents added
//!   ([`blocks::add_blocks`]), removed ([`blocks::strip_blocks`]), a run
//!   cut by length ([`blocks::length_blocks`]) — with the stored blocks read
//!   and deleted through [`blocks::BlockTable`].
//! - [`group`](mod@group): a batch of documents as (term, run code, key length)
//!   groups of postings with the term and collection statistics they add
//!   ([`group_docs`], [`group_docs_parallel`] on two threads).
//! - [`scorer`]: how a search weighs a posting ([`Ranking`], [`Scorer`]) and
//!   bounds a run ([`RunBounds`]).
//! - [`hit`]: the documents of a top-k search ([`Fetched`], [`Hit`]).
//! - [`check`]: a stored index checked against its documents.
//! - [`exhaustive`](mod@exhaustive): the reference ranking every document scored without
//!   an index, that a pruned search is checked against.
//! - [`topk`]: the exact top-k search over the runs ([`top_k`]), with the
//!   storage's reads as a trait ([`topk::BlockSource`]) and callbacks.

pub mod blocks;
pub mod check;
pub mod exhaustive;
pub mod group;
pub mod hit;
pub mod layout;
pub mod parallel;
pub mod scorer;
pub mod topk;

pub use exhaustive::exhaustive;
pub use group::{Flat, GroupKey, Grouped, TermCounts, group, group_docs, min_option};
pub use hit::{Fetched, Hit};
pub use layout::{
    BLOCK_DOCS, CONTEXT_STRIDE, FieldDoc, Posting, ScopeStats, TF_BUCKETS, decode_postings,
    encode_postings, run_code, split_code, term_frequencies,
};
pub use parallel::group_docs_parallel;
pub use scorer::{Ranking, RunBounds, Scorer};
pub use topk::{TermStats, TopK, WeighedTerms, top_k};
