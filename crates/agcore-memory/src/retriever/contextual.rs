//! [`ContextualBm25`]: a BM25F index of memories with a context field built
//! from neighbouring memories, and optional RM3 feedback.

use std::collections::HashMap;

use super::rm3::feedback_query;
use super::term_vector::{TermVector, average, coalesce, context_fields, count, length_norm};
use super::{Bm25, ContextualBm25Config, extract_document_keywords};
use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem};

/// An in-memory retrieval index over [`MemoryItem`]s, built once and
/// searched many times (query latency in microseconds at thousands of
/// memories).
///
/// Each memory is a document with two fields:
/// - its own text (`content`, analysed by [`Analyzer`](super::Analyzer):
///   keywords, CJK bigrams, Snowball stemming), weight 1;
/// - a context field: the text of the `context_window` memories before and
///   after it in the same group (metadata [`ContextualBm25Config::group_key`],
///   ordered by `created_at` then id), weight `context_weight`. This is
///   document expansion with the surrounding conversation, so a reply such
///   as "Yes, last Saturday!" is found by the question its neighbour asked
///   (contextual expansion: Ogilvie & Callan 2003, "Combining document
///   representations for known-item search", SIGIR).
///
/// Fields are combined with BM25F (Robertson, Zaragoza & Taylor 2004,
/// "Simple BM25 extension to multiple weighted fields", CIKM; Zaragoza et al.
/// 2004, "Microsoft Cambridge at TREC-13"): per field a length-normalised
/// term frequency `tf_f / (1 − b + b·len_f/avglen_f)`, weighted and summed,
/// then saturated once, `idf · tf~·(k1 + 1)/(k1 + tf~)`, with the
/// non-negative idf of [`Bm25::idf`]. With [`ContextualBm25Config::rm3`] set,
/// the query is expanded by RM3 pseudo-relevance feedback and run again.
///
/// Scores are finite, ≥ 0, and do not depend on the order the memories were
/// given in. The index is `Send + Sync`; share it behind an `Arc` and rebuild
/// it when the memories change.
///
/// # Examples
/// ```
/// use agcore_memory::MemoryItem;
/// use agcore_memory::retriever::{ContextualBm25, ContextualBm25Config};
/// use serde_json::json;
///
/// let turn = |id: &str, text: &str| MemoryItem::new(id, text).with_metadata(json!({"session": 1}));
/// let items = vec![
///     turn("t1", "Did you finish the marathon in Boston?"),
///     turn("t2", "Yes, last Saturday! My legs still hurt."),
///     turn("t3", "I adopted a puppy named Oscar."),
/// ];
/// let index = ContextualBm25::new(items, ContextualBm25Config::default());
/// let hits = index.search("When did she run the marathon?", 3);
/// assert_eq!(hits[0].item.id, "t1");
/// assert!(hits.iter().any(|h| h.item.id == "t2")); // found through its context
/// assert_eq!(index.search("adopting puppies", 1)[0].item.id, "t3"); // stemming
/// ```
#[derive(Debug, Clone)]
pub struct ContextualBm25 {
    config: ContextualBm25Config,
    items: Vec<MemoryItem>,
    vocab: HashMap<String, u32>,
    terms: Vec<String>,
    idf: Vec<f64>,
    /// Per term: (document, saturated BM25F term weight without idf).
    postings: Vec<Vec<(u32, f64)>>,
    /// Per document: (term, frequency in the memory's own text), and that text's length.
    doc_terms: Vec<(Vec<(u32, f64)>, f64)>,
}

impl ContextualBm25 {
    /// Builds the index over `items` (CPU-bound: for large sets call it from
    /// `spawn_blocking`, or use [`ContextualBm25::from_store`]).
    pub fn new(items: Vec<MemoryItem>, config: ContextualBm25Config) -> Self {
        let mut keyed: Vec<(Option<String>, MemoryItem)> = items
            .into_iter()
            .map(|item| {
                let group = config
                    .group_key
                    .as_deref()
                    .and_then(|key| item.metadata.get(key))
                    .map(ToString::to_string);
                (group, item)
            })
            .collect();
        keyed.sort_by(|(ga, a), (gb, b)| {
            ga.cmp(gb)
                .then_with(|| a.created_at.cmp(&b.created_at))
                .then_with(|| a.id.cmp(&b.id))
        });
        let (groups, items): (Vec<Option<String>>, Vec<MemoryItem>) = keyed.into_iter().unzip();
        let mut vocab: HashMap<String, u32> = HashMap::new();
        let mut terms: Vec<String> = Vec::new();
        // Keyword → term id, so each distinct keyword is stemmed once.
        let mut keyword_ids: HashMap<String, u32> = HashMap::new();
        let mut own: Vec<TermVector> = Vec::with_capacity(items.len());
        let mut own_len: Vec<f64> = Vec::with_capacity(items.len());
        for item in &items {
            let keywords = extract_document_keywords(&item.content);
            own_len.push(count(keywords.len()));
            let mut ids: Vec<(u32, f64)> = Vec::with_capacity(keywords.len());
            for keyword in keywords {
                let id = match keyword_ids.get(&keyword) {
                    Some(&id) => id,
                    None => {
                        let term = config.analyzer.stem(keyword.clone());
                        let id = match vocab.get(&term) {
                            Some(&id) => id,
                            None => {
                                let id = u32::try_from(terms.len()).unwrap_or(u32::MAX);
                                vocab.insert(term.clone(), id);
                                terms.push(term);
                                id
                            }
                        };
                        keyword_ids.insert(keyword, id);
                        id
                    }
                };
                ids.push((id, 1.0));
            }
            own.push(coalesce(ids));
        }
        let (context, context_len) = context_fields(&own, &own_len, &groups, config.context_window);
        let n = items.len();
        let avg_own = average(&own_len);
        let avg_ctx = average(&context_len);
        let mut df = vec![0_usize; terms.len()];
        let mut postings: Vec<Vec<(u32, f64)>> = vec![Vec::new(); terms.len()];
        let bm25 = Bm25::new(config.k1, config.b);
        for (doc, ((tf_own, len_own), (tf_ctx, len_ctx))) in own
            .iter()
            .zip(&own_len)
            .zip(context.iter().zip(&context_len))
            .enumerate()
        {
            let norm_own = length_norm(bm25.b, *len_own, avg_own);
            let mut combined: Vec<(u32, f64)> =
                tf_own.iter().map(|&(t, tf)| (t, tf / norm_own)).collect();
            if config.context_weight > 0.0 {
                let norm_ctx = length_norm(bm25.b, *len_ctx, avg_ctx);
                let w = config.context_weight / norm_ctx;
                combined.extend(tf_ctx.iter().map(|&(t, tf)| (t, w * tf)));
            }
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            for (t, tf) in coalesce(combined) {
                if tf <= 0.0 || !tf.is_finite() {
                    continue;
                }
                if let (Some(list), Some(d)) =
                    (postings.get_mut(t as usize), df.get_mut(t as usize))
                {
                    list.push((doc, tf * (bm25.k1 + 1.0) / (bm25.k1 + tf)));
                    *d += 1;
                }
            }
        }
        let idf = df.iter().map(|&d| Bm25::idf(count(n), count(d))).collect();
        let doc_terms = own.into_iter().zip(own_len).collect();
        Self {
            config,
            items,
            vocab,
            terms,
            idf,
            postings,
            doc_terms,
        }
    }

    /// Lists the memories of `store` matching `filter` and builds the index
    /// on a blocking thread.
    ///
    /// # Errors
    /// The store's [`MemoryStore::list`] errors; [`MemoryError::Storage`] when
    /// the build task fails.
    pub async fn from_store(
        store: &dyn MemoryStore,
        filter: &MemoryFilter,
        config: ContextualBm25Config,
    ) -> Result<Self, MemoryError> {
        let items = store.list(filter).await?;
        tokio::task::spawn_blocking(move || Self::new(items, config))
            .await
            .map_err(|e| MemoryError::Storage(format!("index build task failed: {e}")))
    }

    /// The configuration.
    pub fn config(&self) -> &ContextualBm25Config {
        &self.config
    }

    /// Number of indexed memories.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the index holds no memory.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The indexed memories, in index order (group, `created_at`, id).
    pub fn items(&self) -> &[MemoryItem] {
        &self.items
    }

    /// The best `k` memories for `query`, best first (score descending, ties
    /// by id). Only memories whose own text or context field shares a term
    /// with the (expanded) query are returned; a query without terms or
    /// `k == 0` gives no hits.
    pub fn search(&self, query: &str, k: usize) -> Vec<ScoredItem> {
        self.search_indices(query, k)
            .into_iter()
            .filter_map(|(doc, score)| {
                self.items.get(doc).map(|item| ScoredItem {
                    item: item.clone(),
                    score,
                })
            })
            .collect()
    }

    /// As [`ContextualBm25::search`], as (index into [`ContextualBm25::items`], score).
    pub fn search_indices(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        if k == 0 || self.items.is_empty() {
            return Vec::new();
        }
        let mut seen = std::collections::HashSet::new();
        let weights: Vec<(u32, f64)> = self
            .config
            .analyzer
            .analyze(query)
            .into_iter()
            .filter_map(|t| self.vocab.get(&t).copied())
            .filter(|t| seen.insert(*t))
            .map(|t| (t, 1.0))
            .collect();
        if weights.is_empty() {
            return Vec::new();
        }
        let first = self.rank(&weights, k.max(self.config.rm3.map_or(0, |r| r.fb_docs)));
        let Some(rm3) = self.config.rm3 else {
            return truncate(first, k);
        };
        let expanded = feedback_query(&weights, &first, &self.doc_terms, &self.terms, &rm3);
        self.rank(&expanded, k)
    }

    fn rank(&self, weights: &[(u32, f64)], k: usize) -> Vec<(usize, f64)> {
        let mut scores = vec![0.0_f64; self.items.len()];
        for &(t, w) in weights {
            let idf = self.idf.get(t as usize).copied().unwrap_or(0.0);
            for &(doc, tf) in self.postings.get(t as usize).map_or(&[][..], Vec::as_slice) {
                if let Some(s) = scores.get_mut(doc as usize) {
                    *s += w * idf * tf;
                }
            }
        }
        let mut hits: Vec<(usize, f64)> = scores
            .into_iter()
            .enumerate()
            .filter(|(_, s)| *s > 0.0 && s.is_finite())
            .collect();
        let order = |a: &(usize, f64), b: &(usize, f64)| {
            b.1.total_cmp(&a.1).then_with(|| {
                let ia = self.items.get(a.0).map(|i| i.id.as_str());
                let ib = self.items.get(b.0).map(|i| i.id.as_str());
                ia.cmp(&ib)
            })
        };
        if hits.len() > k && k > 0 {
            hits.select_nth_unstable_by(k - 1, order);
            hits.truncate(k);
        }
        hits.sort_by(order);
        hits
    }
}

fn truncate(mut hits: Vec<(usize, f64)>, k: usize) -> Vec<(usize, f64)> {
    hits.truncate(k);
    hits
}
