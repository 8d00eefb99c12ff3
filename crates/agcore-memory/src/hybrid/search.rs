//! [`HybridStore::search_explained`]: both lists, fusion, thresholds, decay.

use std::collections::HashMap;
use std::time::Instant;

use chrono::Utc;

use super::{CutRule, ExplainedHit, HybridStore, RetrievalMode, ScoreBreakdown, SearchReport};
use crate::retriever::{ListScore, fuse, validate_search_options};
use crate::vector::{VectorFilter, VectorHit};
use crate::{MemoryError, MemoryItem, SearchOptions};

impl HybridStore {
    /// Searches like [`MemoryStore::search`](crate::MemoryStore::search) and
    /// tells why each candidate ranks where it does.
    ///
    /// Steps: the inner store's lexical search and the dense nearest
    /// neighbours of the query's embedding ([`HybridConfig::candidates`](super::HybridConfig::candidates)
    /// each, restricted by `options.filter`); dense hits below
    /// `min_similarity` dropped; the two lists fused; the fused score
    /// multiplied by the time decay; results below `options.min_score` and
    /// beyond `options.limit` cut. When the query cannot be embedded (server
    /// down) the search is lexical and [`SearchReport::dense_unavailable`]
    /// says why; it does not fail.
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
        let mut items: HashMap<String, MemoryItem> = HashMap::new();

        let mut lexical: Vec<(String, f64)> = Vec::new();
        if mode != RetrievalMode::Dense {
            let started = Instant::now();
            let mut lexical_options = options.clone();
            lexical_options.limit = n;
            lexical_options.min_score = None;
            for hit in self.inner.search(query, &lexical_options).await? {
                lexical.push((hit.item.id.clone(), hit.score));
                items.insert(hit.item.id.clone(), hit.item);
            }
            report.search_micros += micros(started);
        }

        let mut dense: Vec<(String, f64)> = Vec::new();
        let mut below_similarity: Vec<(String, f64)> = Vec::new();
        if let (Some(side), true) = (&self.dense, mode != RetrievalMode::Lexical) {
            let started = Instant::now();
            match side.embedder.embed_query(query).await {
                Err(err) => {
                    tracing::warn!(error = %err, "query embedding failed; searching by words only");
                    report.dense_unavailable = Some(err.to_string());
                }
                Ok(vector) => {
                    report.embed_micros = micros(started);
                    let started = Instant::now();
                    let mut filter = VectorFilter::namespace(self.config.namespace.clone());
                    filter.id_prefix = options.filter.prefix.clone();
                    let hits: Vec<VectorHit> = side.vectors.search(&vector, n, &filter).await?;
                    for hit in hits {
                        let item = match items.get(&hit.id) {
                            Some(item) => Some(item.clone()),
                            None => self.inner.get(&hit.id).await?,
                        };
                        // Stale vectors (deleted memories) and filtered-out memories are skipped.
                        let Some(item) = item.filter(|i| options.filter.matches(i)) else {
                            continue;
                        };
                        let score = f64::from(hit.score);
                        if self
                            .config
                            .min_similarity
                            .is_some_and(|min| hit.score < min)
                        {
                            below_similarity.push((hit.id.clone(), score));
                        } else {
                            dense.push((hit.id.clone(), score));
                        }
                        items.insert(hit.id, item);
                    }
                    report.search_micros += micros(started);
                }
            }
        }

        let started = Instant::now();
        let now = Utc::now();
        let mut hits: Vec<ExplainedHit> = fuse(&lexical, &dense, self.config.fusion)
            .into_iter()
            .filter_map(|f| {
                let item = items.remove(&f.id)?;
                let decay = self.config.half_life.map_or(1.0, |half| {
                    let age = (now - item.created_at).num_milliseconds().max(0) as f64 / 1000.0;
                    let half = half.as_secs_f64().max(f64::MIN_POSITIVE);
                    (-age / half).exp2()
                });
                Some(ExplainedHit {
                    item,
                    breakdown: ScoreBreakdown {
                        lexical: f.lexical,
                        dense: f.dense,
                        fused: f.score,
                        decay,
                        score: f.score * decay,
                        cut: None,
                    },
                })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.breakdown
                .score
                .total_cmp(&a.breakdown.score)
                .then_with(|| a.item.id.cmp(&b.item.id))
        });
        let mut kept = 0usize;
        for hit in &mut hits {
            if let Some(min) = options.min_score.filter(|min| hit.breakdown.score < *min) {
                hit.breakdown.cut = Some(CutRule::BelowMinScore { min });
            } else if kept >= options.limit {
                hit.breakdown.cut = Some(CutRule::BeyondLimit {
                    limit: options.limit,
                });
            } else {
                kept += 1;
            }
        }
        if let Some(min) = self.config.min_similarity {
            for (rank, (id, score)) in below_similarity.into_iter().enumerate() {
                if let Some(item) = items.remove(&id) {
                    hits.push(ExplainedHit {
                        item,
                        breakdown: ScoreBreakdown {
                            lexical: None,
                            dense: Some(ListScore {
                                score,
                                rank: dense.len() + rank + 1,
                            }),
                            fused: 0.0,
                            decay: 1.0,
                            score: 0.0,
                            cut: Some(CutRule::BelowSimilarity { min }),
                        },
                    });
                }
            }
        }
        hits.sort_by_key(|h| h.breakdown.cut.is_some());
        report.hits = hits;
        report.search_micros += micros(started);
        tracing::debug!(
            query_chars = query.chars().count(),
            lexical = lexical.len(),
            dense = dense.len(),
            results = kept,
            embed_us = report.embed_micros,
            search_us = report.search_micros,
            "hybrid search"
        );
        Ok(report)
    }
}

fn micros(started: Instant) -> u64 {
    u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX)
}
