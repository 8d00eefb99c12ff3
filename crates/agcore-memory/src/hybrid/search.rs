//! [`HybridStore::search_explained`].

use std::time::Instant;

use super::context::{load_groups, regularise};
use super::rank::{Lists, rank};
use super::{ContextLists, HybridStore, RetrievalMode, SearchReport};
use crate::retriever::validate_search_options;
use crate::vector::VectorFilter;
use crate::{MemoryError, SearchOptions};

impl HybridStore {
    /// Searches like [`MemoryStore::search`](crate::MemoryStore::search) and
    /// tells why each candidate ranks where it does.
    ///
    /// Steps: the inner store's lexical search and the dense nearest
    /// neighbours of the query's embedding ([`HybridConfig::candidates`](super::HybridConfig::candidates)
    /// each, restricted by `options.filter`); neighbouring-memory context
    /// when [`HybridConfig::context`](super::HybridConfig::context) is set
    /// (the lexical score shown is then the regularised one); dense hits below
    /// `min_similarity` cut (and always those with a cosine ≤ 0, and the
    /// whole dense list for a query without letters or digits); the two lists fused; the fused score multiplied
    /// by the time decay; results below `options.min_score` and beyond
    /// `options.limit` cut. When the query cannot be embedded (server down)
    /// the search is lexical and [`SearchReport::dense_unavailable`] says
    /// why; it does not fail.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for bad options; inner and vector store errors.
    pub async fn search_explained(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<SearchReport, MemoryError> {
        validate_search_options(options)?;
        let mode = if self.dense.is_none() {
            RetrievalMode::Lexical
        } else {
            self.config.mode
        };
        let n = self.config.candidates.max(options.limit);
        let mut report = SearchReport::default();
        let mut lists = Lists::default();
        let started = Instant::now();

        if mode != RetrievalMode::Dense {
            let mut lexical_options = options.clone();
            lexical_options.limit = n;
            lexical_options.min_score = None;
            for hit in self.inner.search(query, &lexical_options).await? {
                lists.lexical.push((hit.item.id.clone(), hit.score));
                lists.items.insert(hit.item.id.clone(), hit.item);
            }
        }

        // A query without any letter or digit has no meaning to embed.
        let has_words = query.chars().any(char::is_alphanumeric);
        if let (Some(dense), true) = (&self.dense, mode != RetrievalMode::Lexical && has_words) {
            let mut filter = VectorFilter::namespace(self.config.namespace.clone());
            filter.id_prefix = options.filter.prefix.clone();
            match dense.nearest(query, n, &filter).await {
                Err(MemoryError::Embedding(reason)) => {
                    tracing::warn!(%reason, "query embedding failed; searching by words only");
                    report.dense_unavailable = Some(reason);
                }
                Err(other) => return Err(other),
                Ok((hits, embed)) => {
                    report.embed_micros = u64::try_from(embed.as_micros()).unwrap_or(u64::MAX);
                    // A cosine of 0 or less: the texts share nothing.
                    let hits: Vec<_> = hits.into_iter().filter(|h| h.score > 0.0).collect();
                    // Fetch what the lexical list did not bring; stale vectors
                    // (deleted memories) and filtered-out memories drop out.
                    for hit in &hits {
                        if !lists.items.contains_key(&hit.id)
                            && let Some(item) = self.inner.get(&hit.id).await?
                            && options.filter.matches(&item)
                        {
                            lists.items.insert(hit.id.clone(), item);
                        }
                    }
                    let items = &lists.items;
                    let fresh = dense
                        .fresh(&self.config.namespace, hits, |id| {
                            items.get(id).map(|i| i.content.clone())
                        })
                        .await?;
                    for hit in fresh {
                        lists.dense.push((hit.id, f64::from(hit.score)));
                    }
                }
            }
        }

        if let Some(context) = &self.config.context {
            let groups = load_groups(self.inner.as_ref(), &options.filter, &lists, context).await?;
            regularise(&mut lists.lexical, &mut lists.items, &groups, context);
            if context.lists == ContextLists::Both {
                regularise(&mut lists.dense, &mut lists.items, &groups, context);
            }
        }
        let (lexical, dense) = (lists.lexical.len(), lists.dense.len());
        report.hits = rank(
            lists,
            &self.config,
            options.limit,
            options.min_score,
            |item| item.created_at,
        );
        let total = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        report.search_micros = total.saturating_sub(report.embed_micros);
        tracing::debug!(
            lexical,
            dense,
            results = report.results().count(),
            embed_us = report.embed_micros,
            search_us = report.search_micros,
            "hybrid search"
        );
        Ok(report)
    }
}
