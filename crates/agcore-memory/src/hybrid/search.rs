//! [`HybridStore::search_explained`].

use std::time::Instant;

use super::context::{load_groups, regularise};
use super::rank::{GroupOf, ItemKeys, Lists, rank};
use super::{ContextLists, HybridStore, RetrievalMode, SearchReport};
use crate::retriever::validate_search_options;
use crate::{MemoryError, MemoryItem, SearchOptions};

impl HybridStore {
    /// Searches like [`MemoryStore::search`](crate::MemoryStore::search) and
    /// tells why each candidate ranks where it does.
    ///
    /// Steps: the inner store's lexical search and the dense nearest
    /// neighbours of the query's embedding ([`HybridConfig::candidates`](super::HybridConfig::candidates)
    /// each, restricted by `options.filter`) — with
    /// [`HybridConfig::dense_context`](super::HybridConfig::dense_context)
    /// also the nearest window vectors, each memory's dense score then
    /// combining both ([`DenseContext`](super::DenseContext)); with
    /// [`HybridConfig::feedback`](super::HybridConfig::feedback) the dense
    /// list searched again from the query vector moved towards the best
    /// results of a first fusion ([`DenseFeedback`](super::DenseFeedback));
    /// neighbouring-memory context
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
        self.gather(query, options, mode, n, &mut lists, &mut report)
            .await?;
        if let Some(context) = &self.config.context {
            let groups = load_groups(self.inner.as_ref(), &options.filter, &lists, context).await?;
            regularise(&mut lists.lexical, &mut lists.items, &groups, context);
            if context.lists == ContextLists::Both {
                regularise(&mut lists.dense, &mut lists.items, &groups, context);
            }
        }
        let (lexical, dense) = (lists.lexical.len(), lists.dense.len());
        report.hits = self.fuse(lists, options, mode);
        let total = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        report.search_micros = total.saturating_sub(report.embed_micros);
        tracing::debug!(
            lexical,
            dense,
            feedback = report.feedback_vectors,
            results = report.results().count(),
            embed_us = report.embed_micros,
            search_us = report.search_micros,
            "hybrid search"
        );
        Ok(report)
    }

    /// The lexical list and, unless `mode` is lexical, the dense list (with
    /// feedback when configured), `n` candidates each, into `lists`. A query
    /// that cannot be embedded leaves the dense list empty and says why in
    /// `report`.
    async fn gather(
        &self,
        query: &str,
        options: &SearchOptions,
        mode: RetrievalMode,
        n: usize,
        lists: &mut Lists<MemoryItem>,
        report: &mut SearchReport,
    ) -> Result<(), MemoryError> {
        // The lexical search runs while the query is embedded (an embedding
        // call waits on a server or a blocking thread): the two lists are
        // ready together, and the words' search adds no latency of its own.
        let lexical = async {
            if mode == RetrievalMode::Dense {
                return Ok(Vec::new());
            }
            let mut lexical_options = options.clone();
            lexical_options.limit = n;
            lexical_options.min_score = None;
            self.inner.search(query, &lexical_options).await
        };
        // A query without any letter or digit has no meaning to embed.
        let has_words = query.chars().any(char::is_alphanumeric);
        let dense = self
            .dense
            .as_ref()
            .filter(|_| mode != RetrievalMode::Lexical && has_words);
        let filters = self.dense_filters(options);
        let nearest = async {
            let dense = dense?;
            Some(
                async {
                    let (vector, embed) = dense.embed_query(query).await?;
                    let found = dense.search_each(&vector, n, &filters).await?;
                    Ok::<_, MemoryError>((vector, found, embed))
                }
                .await,
            )
        };
        // Polled first, the embedding call is under way before the lexical
        // search starts.
        let (nearest, lexical) = tokio::join!(nearest, lexical);
        for hit in lexical? {
            lists.lexical.push((hit.item.id.clone(), hit.score));
            lists.items.insert(hit.item.id.clone(), hit.item);
        }
        let (Some(dense), Some(nearest)) = (dense, nearest) else {
            return Ok(());
        };
        match nearest {
            Err(MemoryError::Embedding(reason)) => {
                tracing::warn!(%reason, "query embedding failed; searching by words only");
                report.dense_unavailable = Some(reason);
            }
            Err(other) => return Err(other),
            Ok((vector, found, embed)) => {
                report.embed_micros = u64::try_from(embed.as_micros()).unwrap_or(u64::MAX);
                lists.dense = self.dense_list(dense, found, n, options, lists).await?;
                if let Some(feedback) = &self.config.feedback {
                    report.feedback_vectors = self
                        .feed_back(dense, feedback, &vector, n, options, lists)
                        .await?;
                }
            }
        }
        Ok(())
    }

    /// Fuses the lists ([`rank`]), with group evidence in the hybrid and
    /// dense modes: a lexical search stays the inner store's ranking.
    fn fuse(
        &self,
        lists: Lists<MemoryItem>,
        options: &SearchOptions,
        mode: RetrievalMode,
    ) -> Vec<super::ExplainedHit> {
        let evidence = self
            .config
            .group_evidence
            .as_ref()
            .filter(|_| mode != RetrievalMode::Lexical);
        let group_of = |item: &MemoryItem| evidence.and_then(|e| e.group_of(item));
        let created_at = |item: &MemoryItem| item.created_at;
        rank(
            lists,
            &self.config,
            options.limit,
            options.min_score,
            ItemKeys {
                created_at: &created_at,
                group: evidence.map(|e| (e, &group_of as GroupOf<'_, MemoryItem>)),
            },
        )
    }
}
