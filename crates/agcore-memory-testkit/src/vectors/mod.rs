//! A conformance suite for [`VectorStore`] backends (feature `testkit`).
//!
//! Every backend runs the same checks unchanged: insert, upsert, delete
//! counts, content hashes, stored vectors read back by id, top-k equal to
//! brute force over seeded random
//! unit vectors, tie order, namespace and id-prefix filters, rejected
//! vectors (wrong length, NaN, infinity) leaving nothing written, `k = 0`
//! and the empty store, Chinese and odd ids, and normalisation.
//! Persistent backends also run [`vector_persistence_report`]: vectors
//! survive reopening, and reopening with another
//! [`EmbeddingSpace`] fails with [`MemoryError::EmbeddingMismatch`].
//!
//! # How a backend uses it
//! Give [`vector_conformance_report`] a factory returning a **fresh, empty**
//! store in the given space:
//!
//! ```
//! use std::sync::Arc;
//! use agcore_memory_testkit::vectors;
//! use agcore_memory::vector::{InMemoryVectors, VectorStore};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let report = vectors::vector_conformance_report(|space| async move {
//!     Ok(Arc::new(InMemoryVectors::new(space)) as Arc<dyn VectorStore>)
//! })
//! .await;
//! assert!(report.is_success(), "{report}");
//! # });
//! ```
//!
//! Approximate backends must still return exact results at these sizes
//! (a few hundred vectors): an index should fall back to exact search on
//! small or filtered sets.

mod basics;
mod persistence;
mod ranking;
mod read;
mod values;

use std::future::Future;
use std::sync::Arc;

use agcore_llm::embedding::EmbeddingSpace;

pub use basics::{
    check_content_hashes, check_delete_counts, check_empty_store_and_k_zero, check_insert,
    check_invalid_vectors, check_odd_ids, check_upsert_replaces,
};
pub use persistence::{check_embedding_mismatch, check_reopen_keeps_vectors};
pub use ranking::{
    check_filters, check_normalisation, check_ties, check_top_k_matches_brute_force,
};
pub use read::check_read_vectors;
pub use values::{brute_force, clustered_unit_vectors, random_unit_vectors, testkit_space};

use super::ConformanceReport;
use agcore_memory::MemoryError;
use agcore_memory::vector::VectorStore;

/// What a factory returns: a store, or why it could not open one.
pub type OpenResult = Result<Arc<dyn VectorStore>, MemoryError>;

/// Runs every contract check, each on a fresh store from `fresh(space)`
/// with `space` = [`testkit_space`], and returns the report (check names
/// prefixed `vectors.`).
pub async fn vector_conformance_report<F, Fut>(fresh: F) -> ConformanceReport
where
    F: Fn(EmbeddingSpace) -> Fut,
    Fut: Future<Output = OpenResult>,
{
    let mut report = ConformanceReport::default();
    macro_rules! run {
        ($name:literal, $check:path) => {
            let outcome = match fresh(testkit_space()).await {
                Ok(store) => $check(store).await,
                Err(e) => Err(super::CheckFailure(format!("opening a fresh store: {e}"))),
            };
            match outcome {
                Ok(()) => report.passed.push($name),
                Err(why) => report.failed.push(($name, why)),
            }
        };
    }
    run!("vectors.insert", check_insert);
    run!("vectors.upsert_replaces", check_upsert_replaces);
    run!("vectors.delete_counts", check_delete_counts);
    run!("vectors.content_hashes", check_content_hashes);
    run!("vectors.read_vectors", check_read_vectors);
    run!("vectors.invalid_vectors", check_invalid_vectors);
    run!(
        "vectors.empty_store_and_k_zero",
        check_empty_store_and_k_zero
    );
    run!("vectors.odd_ids", check_odd_ids);
    run!(
        "vectors.top_k_matches_brute_force",
        check_top_k_matches_brute_force
    );
    run!("vectors.ties", check_ties);
    run!("vectors.filters", check_filters);
    run!("vectors.normalisation", check_normalisation);
    report
}

/// The checks for persistent backends. `fresh(space)` opens a new, empty
/// store; `reopen(space)` opens again the storage behind the store that
/// `fresh` returned last (as a new process would), in `space`.
pub async fn vector_persistence_report<F, FFut, R, RFut>(fresh: F, reopen: R) -> ConformanceReport
where
    F: Fn(EmbeddingSpace) -> FFut,
    FFut: Future<Output = OpenResult>,
    R: Fn(EmbeddingSpace) -> RFut,
    RFut: Future<Output = OpenResult>,
{
    let mut report = ConformanceReport::default();
    let outcome = match fresh(testkit_space()).await {
        Ok(store) => check_reopen_keeps_vectors(store, &reopen).await,
        Err(e) => Err(super::CheckFailure(format!("opening a fresh store: {e}"))),
    };
    match outcome {
        Ok(()) => report.passed.push("vectors.reopen_keeps_vectors"),
        Err(why) => report.failed.push(("vectors.reopen_keeps_vectors", why)),
    }
    let outcome = match fresh(testkit_space()).await {
        Ok(store) => check_embedding_mismatch(store, &reopen).await,
        Err(e) => Err(super::CheckFailure(format!("opening a fresh store: {e}"))),
    };
    match outcome {
        Ok(()) => report.passed.push("vectors.embedding_mismatch"),
        Err(why) => report.failed.push(("vectors.embedding_mismatch", why)),
    }
    report
}

/// Runs [`vector_conformance_report`] and panics with the report if a
/// check failed.
///
/// # Panics
/// When a check fails; the message lists each failure.
#[allow(clippy::panic)] // a test harness reports failure by panicking
pub async fn run_vector_conformance<F, Fut>(fresh: F)
where
    F: Fn(EmbeddingSpace) -> Fut,
    Fut: Future<Output = OpenResult>,
{
    let report = vector_conformance_report(fresh).await;
    if !report.is_success() {
        panic!("{report}");
    }
}
