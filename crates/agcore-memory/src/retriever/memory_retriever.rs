//! [`MemoryRetriever`]: one entry point for keyword retrieval over memories and wiki pages.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{
    RetrieverConfig, Scorer, TextOverlap, rescoring_terms, unique_index_terms, unique_keywords,
};
use crate::knowledge::KnowledgeStore;
use crate::{KnowledgePage, MemoryError, MemoryItem, MemoryStore, SearchOptions};

/// Where a [`RetrievedItem`] comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RetrievedSource {
    /// An item of the memory store.
    Memory(MemoryItem),
    /// A page of the knowledge store.
    Page(KnowledgePage),
}

/// One result: the source and its score on the retriever's scorer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievedItem {
    /// The memory or page.
    pub source: RetrievedSource,
    /// Score (TextOverlap: `[0, 1]`), higher is better.
    pub score: f64,
}

impl RetrievedItem {
    /// The memory id or page id.
    pub fn id(&self) -> &str {
        match &self.source {
            RetrievedSource::Memory(item) => &item.id,
            RetrievedSource::Page(page) => &page.id,
        }
    }
}

/// What [`MemoryRetriever::retrieve`] returns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetrievalResult {
    /// The query as given.
    pub query: String,
    /// Its keywords ([`unique_keywords`]).
    pub keywords: Vec<String>,
    /// Results, best first.
    pub items: Vec<RetrievedItem>,
}

/// Keyword retrieval over a [`MemoryStore`] and/or a [`KnowledgeStore`]
/// (see `docs/memory.md`, *Retrieval*):
///
/// 1. keyword extraction ([`extract_keywords`](super::extract_keywords):
///    split, lowercase, stop words, CJK bigrams); no keywords → empty result;
/// 2. candidates: each source's full-text search (top `candidate_pool`);
/// 3. scoring with the scorer (default [`TextOverlap`]) on the
///    [`index_terms`](super::index_terms) of query and candidates (stemmed, as the stores index
///    them): a page scores the best of its title, summary, tags and body, a
///    memory its content;
/// 4. drop scores below `min_score`;
/// 5. sort descending (ties by id) and keep `max_results`.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore};
/// use agcore_memory::retriever::{MemoryRetriever, RetrieverConfig};
///
/// let store = Arc::new(InMemoryStore::new());
/// store.save(MemoryItem::new("m1", "user prefers concise answers")).await?;
/// store.save(MemoryItem::new("m2", "deploys happen on mondays")).await?;
/// let retriever = MemoryRetriever::new(RetrieverConfig::default()).with_memory_store(store);
/// let result = retriever.retrieve("concise answers").await?;
/// assert_eq!(result.items[0].id(), "m1");
/// assert_eq!(result.items.len(), 1);
/// # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
/// ```
pub struct MemoryRetriever {
    memory: Option<Arc<dyn MemoryStore>>,
    knowledge: Option<Arc<KnowledgeStore>>,
    config: RetrieverConfig,
    scorer: Arc<dyn Scorer>,
}

impl std::fmt::Debug for MemoryRetriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemoryRetriever")
            .field("memory", &self.memory.is_some())
            .field("knowledge", &self.knowledge.is_some())
            .field("config", &self.config)
            .field("scorer", &self.scorer.name())
            .finish()
    }
}

impl MemoryRetriever {
    /// A retriever without sources, scoring with [`TextOverlap`].
    pub fn new(config: RetrieverConfig) -> Self {
        Self {
            memory: None,
            knowledge: None,
            config,
            scorer: Arc::new(TextOverlap),
        }
    }

    /// A retriever over a knowledge store.
    pub fn over_knowledge(knowledge: Arc<KnowledgeStore>, config: RetrieverConfig) -> Self {
        Self::new(config).with_knowledge_store(knowledge)
    }

    /// Adds a memory store as a source.
    pub fn with_memory_store(mut self, store: Arc<dyn MemoryStore>) -> Self {
        self.memory = Some(store);
        self
    }

    /// Adds a knowledge store as a source.
    pub fn with_knowledge_store(mut self, knowledge: Arc<KnowledgeStore>) -> Self {
        self.knowledge = Some(knowledge);
        self
    }

    /// Scores with `scorer` instead of [`TextOverlap`] (e.g. [`super::Bm25`];
    /// adjust `min_score` to its scale).
    pub fn with_scorer(mut self, scorer: Arc<dyn Scorer>) -> Self {
        self.scorer = scorer;
        self
    }

    /// The configuration.
    pub fn config(&self) -> &RetrieverConfig {
        &self.config
    }

    /// Runs the retrieval flow (see the type docs) for `query`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `max_results` or `candidate_pool`
    /// is 0 or the filter is invalid; the sources' errors.
    pub async fn retrieve(&self, query: &str) -> Result<RetrievalResult, MemoryError> {
        if self.config.max_results == 0 || self.config.candidate_pool == 0 {
            return Err(MemoryError::InvalidInput(
                "max_results and candidate_pool must be at least 1".into(),
            ));
        }
        self.config.filter.validate()?;
        let keywords = unique_keywords(query);
        let mut sources = Vec::new();
        if !keywords.is_empty() {
            if let Some(store) = &self.memory {
                let options = SearchOptions::top_k(self.config.candidate_pool)
                    .with_filter(self.config.filter.clone());
                let hits = store.search(query, &options).await?;
                sources.extend(hits.into_iter().map(|h| RetrievedSource::Memory(h.item)));
            }
            if let Some(knowledge) = &self.knowledge {
                let hits = knowledge
                    .search_scored(query, self.config.candidate_pool)
                    .await?;
                sources.extend(hits.into_iter().map(|h| RetrievedSource::Page(h.page)));
            }
        }
        let terms = unique_index_terms(query);
        let scores = score_fields(self.scorer.as_ref(), &terms, &sources);
        let mut items: Vec<RetrievedItem> = sources
            .into_iter()
            .zip(scores)
            .filter(|(_, score)| *score > 0.0 && *score >= self.config.min_score)
            .map(|(source, score)| RetrievedItem { source, score })
            .collect();
        items.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.id().cmp(b.id())));
        items.truncate(self.config.max_results);
        Ok(RetrievalResult {
            query: query.to_owned(),
            keywords,
            items,
        })
    }
}

/// Per candidate, the best score over its fields (title, summary, tags,
/// body); each field is scored across all candidates so corpus statistics
/// stay per field.
fn score_fields(scorer: &dyn Scorer, query: &[String], sources: &[RetrievedSource]) -> Vec<f64> {
    let fields: Vec<[Vec<String>; 4]> = sources
        .iter()
        .map(|s| match s {
            RetrievedSource::Memory(item) => [
                Vec::new(),
                Vec::new(),
                Vec::new(),
                rescoring_terms(query, &item.content),
            ],
            RetrievedSource::Page(page) => [
                rescoring_terms(query, &page.title),
                rescoring_terms(query, &page.summary),
                rescoring_terms(query, &page.tags.join(" ")),
                rescoring_terms(query, &page.content),
            ],
        })
        .collect();
    let mut best = vec![0.0_f64; sources.len()];
    for f in 0..4 {
        let docs: Vec<Vec<String>> = fields
            .iter()
            .map(|fs| fs.get(f).cloned().unwrap_or_default())
            .collect();
        for (b, s) in best.iter_mut().zip(scorer.score_all(query, &docs)) {
            if s.is_finite() && s > *b {
                *b = s;
            }
        }
    }
    best
}
