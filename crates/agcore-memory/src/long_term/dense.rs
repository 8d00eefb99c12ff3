//! Hybrid retrieval for long-term memory: each scope's entries get vectors
//! in their own namespace of a shared [`DenseIndex`], and
//! [`ScopedMemory::search_with`](super::ScopedMemory::search_with) fuses
//! lexical and dense lists when one is configured.

use std::time::Instant;

use super::backend::{ArchivedFilter, ListRequest, SaveOutcome, ScoredEntry, SearchRequest};
use super::dense_index::scope_namespace;
use super::entry::MemoryEntry;
use super::scoped::ScopedMemory;
use crate::MemoryError;
use crate::hybrid::rank::{ItemKeys, Lists, rank};
use crate::hybrid::{DenseIndex, HybridConfig, RetrievalMode, SearchReport};
use crate::vector::{VectorFilter, VectorHit};

fn admits(request: &SearchRequest, entry: &MemoryEntry) -> bool {
    request.archived.admits(entry.archived)
        && request.memory_type.is_none_or(|t| t == entry.memory_type)
}

impl ScopedMemory {
    /// Queues the text of `entry` for embedding (no-op without a dense index).
    pub(crate) async fn embed_entry(&self, entry: &MemoryEntry) {
        if let Some(dense) = self.dense() {
            let ns = scope_namespace(self.scope());
            dense
                .index
                .enqueue(&ns, &entry.id.to_string(), &entry.search_text())
                .await;
        }
    }

    /// Queues the entries of `outcomes` for embedding.
    pub(crate) async fn embed_outcomes(&self, outcomes: &[SaveOutcome]) {
        for outcome in outcomes {
            self.embed_entry(&outcome.entry).await;
        }
    }

    /// Drops the vector of entry `id`.
    pub(crate) async fn unembed(&self, id: i64) -> Result<(), MemoryError> {
        if let Some(dense) = self.dense() {
            let ns = scope_namespace(self.scope());
            dense.index.remove(&ns, &[id.to_string()]).await?;
        }
        Ok(())
    }

    /// Queues every entry of the scope (archived too) for embedding; entries
    /// whose vector is up to date are skipped without a model call. Returns
    /// how many were queued (0 without a dense index).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] while listing.
    pub async fn backfill_vectors(&self) -> Result<usize, MemoryError> {
        if self.dense().is_none() {
            return Ok(0);
        }
        let mut request = ListRequest::all();
        request.archived = ArchivedFilter::Include;
        let entries = self.list(&request).await?;
        for entry in &entries {
            self.embed_entry(entry).await;
        }
        Ok(entries.len())
    }

    /// Searches like [`ScopedMemory::search_with`] and tells why each entry
    /// ranks where it does: BM25 over the scope, the nearest vectors of the
    /// scope's namespace, fusion and cuts as in
    /// [`HybridStore::search_explained`](crate::hybrid::HybridStore::search_explained).
    /// Lexical only without a dense index or when the query cannot be
    /// embedded ([`SearchReport::dense_unavailable`]).
    ///
    /// # Errors
    /// [`MemoryError::RetrievalError`]; [`MemoryError::Storage`]; vector store errors.
    pub async fn search_explained(
        &self,
        query: &str,
        request: &SearchRequest,
    ) -> Result<SearchReport<MemoryEntry>, MemoryError> {
        let started = Instant::now();
        let default_config = HybridConfig::default().with_mode(RetrievalMode::Lexical);
        let (dense, config) = match self.dense() {
            Some(d) => (Some(&d.index), &d.config),
            None => (None, &default_config),
        };
        let mode = if dense.is_none() {
            RetrievalMode::Lexical
        } else {
            config.mode
        };
        let n = config.candidates.max(request.limit);
        let mut report = SearchReport::default();
        let mut lists = Lists::default();
        // As in `HybridStore`: the lexical search runs while the query is
        // embedded, the embedding call polled first.
        let lexical = async {
            if mode == RetrievalMode::Dense {
                return Ok(Vec::new());
            }
            let mut wide = request.clone();
            wide.limit = n;
            self.backend_ref().search(self.scope(), query, &wide).await
        };
        let has_words = query.chars().any(char::is_alphanumeric);
        let index = dense.filter(|_| mode != RetrievalMode::Lexical && has_words);
        let nearest = async {
            match index {
                Some(index) => {
                    let filter = VectorFilter::namespace(scope_namespace(self.scope()));
                    Some(index.nearest(query, n, &filter).await)
                }
                None => None,
            }
        };
        let (nearest, lexical) = tokio::join!(nearest, lexical);
        for hit in lexical? {
            let id = hit.entry.id.to_string();
            lists.lexical.push((id.clone(), hit.score));
            lists.items.insert(id, hit.entry);
        }
        if let (Some(index), Some(nearest)) = (index, nearest) {
            match nearest {
                Err(MemoryError::Embedding(reason)) => {
                    tracing::warn!(%reason, "query embedding failed; searching by words only");
                    report.dense_unavailable = Some(reason);
                }
                Err(other) => return Err(other),
                Ok((hits, embed)) => {
                    report.embed_micros = u64::try_from(embed.as_micros()).unwrap_or(u64::MAX);
                    self.dense_candidates(index, hits, request, &mut lists)
                        .await?;
                }
            }
        }
        let created_at = |e: &MemoryEntry| e.created_at;
        // Long-term entries belong to no dialogue session: no group evidence.
        let keys = ItemKeys {
            created_at: &created_at,
            group: None,
        };
        report.hits = rank(lists, config, request.limit, None, keys);
        let total = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        report.search_micros = total.saturating_sub(report.embed_micros);
        Ok(report)
    }

    /// The dense list from the nearest vectors `hits`: cosines ≤ 0 cut, the
    /// entries the lexical list did not bring read in one call (those the
    /// request excludes drop out), stale vectors dropped.
    async fn dense_candidates(
        &self,
        index: &DenseIndex,
        hits: Vec<VectorHit>,
        request: &SearchRequest,
        lists: &mut Lists<MemoryEntry>,
    ) -> Result<(), MemoryError> {
        let hits: Vec<_> = hits.into_iter().filter(|h| h.score > 0.0).collect();
        let mut missing: Vec<i64> = hits
            .iter()
            .filter(|h| !lists.items.contains_key(&h.id))
            .filter_map(|h| h.id.parse().ok())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        for entry in self.get_many(&missing).await?.into_iter().flatten() {
            if admits(request, &entry) {
                lists.items.insert(entry.id.to_string(), entry);
            }
        }
        let items = &lists.items;
        let ns = scope_namespace(self.scope());
        let fresh = index
            .fresh(&ns, hits, |id| items.get(id).map(MemoryEntry::search_text))
            .await?;
        for hit in fresh {
            lists.dense.push((hit.id, f64::from(hit.score)));
        }
        Ok(())
    }

    /// [`ScopedMemory::search_explained`] reduced to the results.
    pub(crate) async fn search_ranked(
        &self,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        Ok(self
            .search_explained(query, request)
            .await?
            .into_results()
            .map(|h| ScoredEntry {
                score: h.breakdown.score,
                entry: h.item,
            })
            .collect())
    }
}
