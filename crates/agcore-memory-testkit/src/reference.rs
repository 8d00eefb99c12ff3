//! Exhaustive reference searches computed from what a backend returns
//! through its public API, for checking and measuring its pruned,
//! index-backed search on the same data.
//!
//! Every backend promises the hits and scores of the in-memory
//! implementations, so the references copy the listed rows into them and
//! rank there without pruning: a [`MemoryStore`] into an [`InMemoryStore`]
//! ([`store_copy`], [`exhaustive_search`]: BM25F over every item, the
//! collection statistics counted from the items), one long-term scope into
//! an [`InMemoryLongTerm`] ([`ScopeCopy`], [`exhaustive_scope_search`]: BM25
//! with FTS5's idf over every entry of the scope, its statistics counted from
//! all of them, archived ones and every type included). Listing reads the
//! stored items and entries, not the search index, so an index out of step
//! with the rows ranks differently from the reference.

use std::collections::HashMap;

use agcore_memory::long_term::{
    ArchivedFilter, InMemoryLongTerm, ListRequest, LongTermBackend, MemoryEntry, MemoryScope,
    ScoredEntry, SearchRequest,
};
use agcore_memory::retriever::ContextField;
use agcore_memory::{
    InMemoryStore, MemoryError, MemoryFilter, MemoryStore, ScoredItem, SearchOptions,
};

/// Every item of `store` ([`MemoryStore::list`] with no filter) in a new
/// [`InMemoryStore`] indexed with `context` as its context field: pass the
/// field `store` was configured with (`None`: plain BM25).
///
/// # Errors
/// As [`MemoryStore::list`] and [`MemoryStore::save_many`].
pub async fn store_copy(
    store: &dyn MemoryStore,
    context: Option<ContextField>,
) -> Result<InMemoryStore, MemoryError> {
    let items = store.list(&MemoryFilter::all()).await?;
    let copy = InMemoryStore::new().with_context_field(context);
    copy.save_many(items).await?;
    Ok(copy)
}

/// The exhaustive reference of `store.search(query, options)`:
/// [`InMemoryStore::exhaustive_search`] over [`store_copy`] (same hits, order
/// and scores up to float rounding as a correct pruned search).
/// `O(items)` per call; for many queries on unchanged data, search one
/// [`store_copy`] instead.
///
/// # Errors
/// As [`store_copy`] and [`MemoryStore::search`].
pub async fn exhaustive_search(
    store: &dyn MemoryStore,
    context: Option<ContextField>,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>, MemoryError> {
    store_copy(store, context)
        .await?
        .exhaustive_search(query, options)
        .await
}

/// Every entry of one scope of a long-term backend (archived included),
/// copied into an [`InMemoryLongTerm`], whose search scores every entry of
/// the scope: the exhaustive reference of [`LongTermBackend::search`].
#[derive(Debug)]
pub struct ScopeCopy {
    copy: InMemoryLongTerm,
    scope: MemoryScope,
    /// The listed entries, by the id their copy was given.
    listed: HashMap<i64, MemoryEntry>,
}

impl ScopeCopy {
    /// Lists every entry of `scope` in `backend` and copies them in id
    /// order, so that ties, which go by id, fall as in `backend`.
    ///
    /// # Errors
    /// As [`LongTermBackend::list`]; [`MemoryError::Storage`] when two
    /// listed entries share a [`content_key`](agcore_memory::long_term::content_key)
    /// (a scope holds at most one entry per key).
    pub async fn load<B: LongTermBackend + ?Sized>(
        backend: &B,
        scope: &MemoryScope,
    ) -> Result<Self, MemoryError> {
        let mut every = ListRequest::all();
        every.archived = ArchivedFilter::Include;
        let mut entries = backend.list(scope, &every).await?;
        entries.sort_by_key(|e| e.id);
        let copy = InMemoryLongTerm::new();
        let outcomes = copy.import_entries(entries.clone()).await?;
        let mut listed = HashMap::with_capacity(entries.len());
        for (outcome, entry) in outcomes.into_iter().zip(entries) {
            if !outcome.created {
                return Err(MemoryError::Storage(format!(
                    "entry {} of {scope} shares its content key with another",
                    entry.id
                )));
            }
            listed.insert(outcome.entry.id, entry);
        }
        Ok(Self {
            copy,
            scope: scope.clone(),
            listed,
        })
    }

    /// The best `request.limit` listed entries for `query`, best first, ties
    /// by id, as [`LongTermBackend::search`] ranks them; each hit holds the
    /// entry as listed.
    ///
    /// # Errors
    /// As [`LongTermBackend::search`].
    pub async fn search(
        &self,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        let hits = self.copy.search(&self.scope, query, request).await?;
        hits.into_iter()
            .map(|hit| {
                let entry = self.listed.get(&hit.entry.id).cloned().ok_or_else(|| {
                    MemoryError::Storage(format!("no listed entry for copy {}", hit.entry.id))
                })?;
                Ok(ScoredEntry {
                    entry,
                    score: hit.score,
                })
            })
            .collect()
    }
}

/// The exhaustive reference of `backend.search(scope, query, request)`:
/// [`ScopeCopy::search`] on a fresh [`ScopeCopy::load`]. `O(entries of the
/// scope)` per call.
///
/// # Errors
/// As [`ScopeCopy::load`] and [`ScopeCopy::search`].
pub async fn exhaustive_scope_search<B: LongTermBackend + ?Sized>(
    backend: &B,
    scope: &MemoryScope,
    query: &str,
    request: &SearchRequest,
) -> Result<Vec<ScoredEntry>, MemoryError> {
    ScopeCopy::load(backend, scope)
        .await?
        .search(query, request)
        .await
}

#[cfg(test)]
mod tests;
