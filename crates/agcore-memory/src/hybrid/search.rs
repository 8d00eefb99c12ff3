//! [`HybridStore::search_explained`].

use std::collections::HashSet;
use std::time::Instant;

use super::context::{load_groups, regularise};
use super::rank::{GroupOf, ItemKeys, Lists, rank};
use super::window::window_namespace;
use super::{ContextLists, DenseContext, DenseIndex, HybridStore, RetrievalMode, SearchReport};
use crate::retriever::validate_search_options;
use crate::vector::{VectorFilter, VectorHit};
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
    /// combining both ([`DenseContext`]); neighbouring-memory context
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
        let nearest = async {
            match dense {
                Some(dense) => Some(
                    dense
                        .nearest_each(query, n, &self.dense_filters(options))
                        .await,
                ),
                None => None,
            }
        };
        // Polled first, the embedding call is under way before the lexical
        // search starts.
        let (nearest, lexical) = tokio::join!(nearest, lexical);
        for hit in lexical? {
            lists.lexical.push((hit.item.id.clone(), hit.score));
            lists.items.insert(hit.item.id.clone(), hit.item);
        }

        if let (Some(dense), Some(nearest)) = (dense, nearest) {
            match nearest {
                Err(MemoryError::Embedding(reason)) => {
                    tracing::warn!(%reason, "query embedding failed; searching by words only");
                    report.dense_unavailable = Some(reason);
                }
                Err(other) => return Err(other),
                Ok((found, embed)) => {
                    report.embed_micros = u64::try_from(embed.as_micros()).unwrap_or(u64::MAX);
                    let mut found = found.into_iter();
                    let own_hits = found.next().unwrap_or_default();
                    let own_floor = DenseContext::floor(
                        own_hits.len(),
                        n,
                        own_hits.last().map(|h| f64::from(h.score)),
                    );
                    // The ids whose own vector is checked here: their
                    // windows take that verdict instead of a second check.
                    let checked: HashSet<String> = match self.config.dense_context {
                        Some(_) => own_hits
                            .iter()
                            .filter(|h| h.score > 0.0)
                            .map(|h| h.id.clone())
                            .collect(),
                        None => HashSet::new(),
                    };
                    let own = self
                        .fresh_hits(dense, own_hits, options, &mut lists)
                        .await?;
                    lists.dense = match (&self.config.dense_context, found.next()) {
                        (Some(context), Some(windows)) => {
                            // A window vector counts while the memory's own
                            // vector is fresh (its text is what was embedded).
                            let window_floor = DenseContext::floor(
                                windows.len(),
                                n,
                                windows.last().map(|h| f64::from(h.score)),
                            );
                            let fresh_own: HashSet<&str> =
                                own.iter().map(|(id, _)| id.as_str()).collect();
                            let (known, unknown): (Vec<_>, Vec<_>) =
                                windows.into_iter().partition(|h| checked.contains(&h.id));
                            let mut windows: Vec<(String, f64)> = known
                                .into_iter()
                                .filter(|h| h.score > 0.0 && fresh_own.contains(h.id.as_str()))
                                .map(|h| (h.id, f64::from(h.score)))
                                .collect();
                            let unknown = unknown
                                .into_iter()
                                .map(|h| VectorHit {
                                    content_hash: None,
                                    ..h
                                })
                                .collect();
                            windows.extend(
                                self.fresh_hits(dense, unknown, options, &mut lists).await?,
                            );
                            let items = &lists.items;
                            let floors = (own_floor.max(0.0), window_floor.max(0.0));
                            context.combine(&own, &windows, floors, |id| {
                                items.get(id).and_then(|i| context.group_value(i)).is_some()
                            })
                        }
                        _ => own,
                    };
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
        // Group evidence belongs to the hybrid and dense modes: a lexical
        // search stays the inner store's ranking.
        let evidence = self
            .config
            .group_evidence
            .as_ref()
            .filter(|_| mode != RetrievalMode::Lexical);
        let group_of = |item: &MemoryItem| evidence.and_then(|e| e.group_of(item));
        let created_at = |item: &MemoryItem| item.created_at;
        report.hits = rank(
            lists,
            &self.config,
            options.limit,
            options.min_score,
            ItemKeys {
                created_at: &created_at,
                group: evidence.map(|e| (e, &group_of as GroupOf<'_, MemoryItem>)),
            },
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

    /// The vector filters of a dense search: the memories' own vectors and,
    /// with [`HybridConfig::dense_context`](super::HybridConfig::dense_context),
    /// their windows' — both restricted to `options.filter.prefix`.
    fn dense_filters(&self, options: &SearchOptions) -> Vec<VectorFilter> {
        let mut filter = VectorFilter::namespace(self.config.namespace.clone());
        filter.id_prefix = options.filter.prefix.clone();
        let mut filters = vec![filter.clone()];
        if self.config.dense_context.is_some() {
            filter.namespace = Some(window_namespace(&self.config.namespace));
            filters.push(filter);
        }
        filters
    }

    /// The `(id, cosine)` list of `hits` that are current: a cosine above 0
    /// (at or below it the texts share nothing), the memory still held and
    /// passing `options.filter` (fetched into `lists.items` when the lexical
    /// list did not bring it), and its own vector made from its current
    /// text (a hit without a content hash is checked against the memory's
    /// own vector).
    async fn fresh_hits(
        &self,
        dense: &DenseIndex,
        hits: Vec<VectorHit>,
        options: &SearchOptions,
        lists: &mut Lists<MemoryItem>,
    ) -> Result<Vec<(String, f64)>, MemoryError> {
        let hits: Vec<_> = hits.into_iter().filter(|h| h.score > 0.0).collect();
        let mut missing: Vec<String> = hits
            .iter()
            .filter(|h| !lists.items.contains_key(&h.id))
            .map(|h| h.id.clone())
            .collect();
        missing.sort_unstable();
        missing.dedup();
        // One lookup for every candidate the lexical list did not bring.
        for item in self.inner.get_many(&missing).await?.into_iter().flatten() {
            if options.filter.matches(&item) {
                lists.items.insert(item.id.clone(), item);
            }
        }
        let items = &lists.items;
        let fresh = dense
            .fresh(&self.config.namespace, hits, |id| {
                items.get(id).map(|i| i.content.as_str())
            })
            .await?;
        Ok(fresh
            .into_iter()
            .map(|hit| (hit.id, f64::from(hit.score)))
            .collect())
    }
}
