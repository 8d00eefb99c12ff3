//! Persistent backends: reopening keeps vectors and checks the space.

use std::future::Future;
use std::sync::Arc;

use agcore_llm::embedding::EmbeddingSpace;

use super::OpenResult;
use super::values::{axis, record, strings};
use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::vector::{VectorFilter, VectorStore};

/// Vectors written before reopening are found after it, with their hashes.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_reopen_keeps_vectors<R, Fut>(
    store: Arc<dyn VectorStore>,
    reopen: &R,
) -> CheckResult
where
    R: Fn(EmbeddingSpace) -> Fut,
    Fut: Future<Output = OpenResult>,
{
    let space = store.space().clone();
    let d = space.dimensions;
    store
        .upsert(vec![
            record("", "kept", axis(d, 0)),
            record("记忆", "用户", axis(d, 1)),
        ])
        .await?;
    store.upsert(vec![record("", "gone", axis(d, 2))]).await?;
    store.delete("", &strings(&["gone"])).await?;
    drop(store);
    let again = reopen(space).await?;
    let n = again.count(&VectorFilter::default()).await?;
    ensure(n == 2, || format!("count after reopening: {n}"))?;
    let hits = again
        .search(&axis(d, 1), 1, &VectorFilter::default())
        .await?;
    ensure(
        hits.first()
            .is_some_and(|h| h.namespace == "记忆" && h.id == "用户"),
        || format!("search after reopening: {hits:?}"),
    )?;
    let hashes = again
        .content_hashes("", &strings(&["kept", "gone"]))
        .await?;
    ensure(hashes == vec![Some("h:kept".to_owned()), None], || {
        format!("hashes after reopening: {hashes:?}")
    })
}

/// Reopening with another model id or another dimension count fails with
/// [`MemoryError::EmbeddingMismatch`] and changes nothing: reopening with
/// the original space still finds the vectors.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_embedding_mismatch<R, Fut>(
    store: Arc<dyn VectorStore>,
    reopen: &R,
) -> CheckResult
where
    R: Fn(EmbeddingSpace) -> Fut,
    Fut: Future<Output = OpenResult>,
{
    let space = store.space().clone();
    let d = space.dimensions;
    store.upsert(vec![record("", "v", axis(d, 0))]).await?;
    drop(store);
    for other in [
        EmbeddingSpace::new(format!("{}-other", space.model), d),
        EmbeddingSpace::new(space.model.clone(), d + 1),
    ] {
        match reopen(other.clone()).await {
            Err(MemoryError::EmbeddingMismatch { .. }) => {}
            Err(e) => {
                return Err(CheckFailure(format!(
                    "reopening with {other}: expected EmbeddingMismatch, got {e}"
                )));
            }
            Ok(_) => {
                return Err(CheckFailure(format!(
                    "reopening a store of {space} with {other} succeeded"
                )));
            }
        }
    }
    let again = reopen(space).await?;
    let hits = again
        .search(&axis(d, 0), 1, &VectorFilter::default())
        .await?;
    ensure(hits.first().is_some_and(|h| h.id == "v"), || {
        format!("after the refused reopenings the vector is gone: {hits:?}")
    })
}
