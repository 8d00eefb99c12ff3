//! [`ContextualIndex`]: a BM25F index of documents with a context field
//! built from their neighbours in the same sequence, and optional RM3
//! feedback.

pub mod refield;
pub mod settle;
pub mod spans;
pub mod upkeep;

use std::collections::{HashMap, HashSet};

use crate::analyzer::Analyzer;
use crate::bm25::Bm25;
use crate::bm25f::{length_norm, saturate};
use crate::keywords::extract_document_keywords;
use crate::rm3::{Rm3Config, feedback_query};
use crate::term_vector::{TermVector, average, coalesce, context_fields, count};

/// One document given to [`ContextualIndex::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexDocument<'a> {
    /// Its id: ties of equal scores rank by id, ascending.
    pub id: &'a str,
    /// Its text.
    pub text: &'a str,
    /// The sequence it belongs to (a chat session, a document); context
    /// never crosses sequences. `None` is a sequence of its own kind: the
    /// documents without one are neighbours of each other.
    pub group: Option<&'a str>,
}

/// Settings of a [`ContextualIndex`].
#[derive(Debug, Clone)]
pub struct ContextualParams {
    /// k1 and b of BM25F, shared by both fields.
    pub bm25: Bm25,
    /// Neighbours on each side (same group, in the order given) whose text
    /// forms a document's context field; 0 = no context field.
    pub context_window: usize,
    /// Weight of the context field against the own text (weight 1), ≥ 0.
    pub context_weight: f64,
    /// RM3 pseudo-relevance feedback, or `None`.
    pub rm3: Option<Rm3Config>,
    /// How text becomes terms (documents: [`extract_document_keywords`]
    /// then [`Analyzer::stem`]; queries: [`Analyzer::analyze`]).
    pub analyzer: Analyzer,
}

impl Default for ContextualParams {
    /// BM25's published defaults, a window of 1 weighted 0.5, no RM3,
    /// [`Analyzer::english`].
    fn default() -> Self {
        Self {
            bm25: Bm25::default(),
            context_window: 1,
            context_weight: 0.5,
            rm3: None,
            analyzer: Analyzer::english(),
        }
    }
}

/// An in-memory BM25F index, built once and searched many times (query
/// latency in microseconds at thousands of documents).
///
/// Each document has two fields: its own text (weight 1) and a context
/// field, the text of the `context_window` documents before and after it in
/// the same group, in the order the documents were given (weight
/// `context_weight`): document expansion with the surrounding conversation
/// (Ogilvie & Callan 2003, "Combining document representations for
/// known-item search", SIGIR). Fields are combined with BM25F
/// ([`Bm25F`](crate::Bm25F): Robertson, Zaragoza & Taylor 2004), with the
/// non-negative idf of [`Bm25::idf`]; with [`ContextualParams::rm3`] set the
/// query is expanded by RM3 and run again.
///
/// Scores are finite and ≥ 0. `Send + Sync`.
///
/// # Examples
/// ```
/// use agcore_search::{ContextualIndex, ContextualParams, IndexDocument};
/// let doc = |id, text| IndexDocument { id, text, group: Some("s1") };
/// let index = ContextualIndex::new(
///     &[doc("t1", "Did you finish the marathon?"), doc("t2", "Yes, last Saturday!")],
///     ContextualParams::default(),
/// );
/// let hits = index.search("marathon", 2);
/// assert_eq!(hits[0].0, 0);
/// assert_eq!(hits.len(), 2); // t2 through its context field
/// ```
#[derive(Debug, Clone)]
pub struct ContextualIndex {
    params: ContextualParams,
    ids: Vec<String>,
    vocab: HashMap<String, u32>,
    terms: Vec<String>,
    idf: Vec<f64>,
    /// Per term: (document, saturated BM25F term weight without idf).
    postings: Vec<Vec<(u32, f64)>>,
    /// Per document: (term, frequency in its own text), and that text's length.
    doc_terms: Vec<(TermVector, f64)>,
}

impl ContextualIndex {
    /// Builds the index over `documents`, in sequence order (neighbours are
    /// taken in this order). CPU-bound: linear in the total text.
    pub fn new(documents: &[IndexDocument<'_>], params: ContextualParams) -> Self {
        let mut vocabulary = Vocabulary::default();
        let mut own: Vec<TermVector> = Vec::with_capacity(documents.len());
        let mut own_len: Vec<f64> = Vec::with_capacity(documents.len());
        for document in documents {
            let keywords = extract_document_keywords(document.text);
            own_len.push(count(keywords.len()));
            let ids: Vec<(u32, f64)> = keywords
                .into_iter()
                .map(|keyword| (vocabulary.id(keyword, &params.analyzer), 1.0))
                .collect();
            own.push(coalesce(ids));
        }
        let Vocabulary { vocab, terms, .. } = vocabulary;
        let groups: Vec<Option<String>> = documents
            .iter()
            .map(|d| d.group.map(str::to_owned))
            .collect();
        let (context, context_len) = context_fields(&own, &own_len, &groups, params.context_window);
        let avg_own = average(&own_len);
        let avg_ctx = average(&context_len);
        let mut df = vec![0_usize; terms.len()];
        let mut postings: Vec<Vec<(u32, f64)>> = vec![Vec::new(); terms.len()];
        let bm25 = params.bm25;
        for (doc, ((tf_own, len_own), (tf_ctx, len_ctx))) in own
            .iter()
            .zip(&own_len)
            .zip(context.iter().zip(&context_len))
            .enumerate()
        {
            let norm_own = length_norm(bm25.b, *len_own, avg_own);
            let mut combined: Vec<(u32, f64)> =
                tf_own.iter().map(|&(t, tf)| (t, tf / norm_own)).collect();
            if params.context_weight > 0.0 {
                let norm_ctx = length_norm(bm25.b, *len_ctx, avg_ctx);
                let w = params.context_weight / norm_ctx;
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
                    list.push((doc, saturate(bm25.k1, tf)));
                    *d += 1;
                }
            }
        }
        let n = count(documents.len());
        let idf = df.iter().map(|&d| Bm25::idf(n, count(d))).collect();
        Self {
            params,
            ids: documents.iter().map(|d| d.id.to_owned()).collect(),
            vocab,
            terms,
            idf,
            postings,
            doc_terms: own.into_iter().zip(own_len).collect(),
        }
    }

    /// The settings.
    pub fn params(&self) -> &ContextualParams {
        &self.params
    }

    /// Number of indexed documents.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the index holds no document.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The best `k` documents for `query` as (index into the documents
    /// given to [`ContextualIndex::new`], score), best first (score
    /// descending, ties by id). Only documents whose own text or context
    /// field shares a term with the (expanded) query are returned; a query
    /// without terms or `k == 0` gives no hits.
    pub fn search(&self, query: &str, k: usize) -> Vec<(usize, f64)> {
        if k == 0 || self.ids.is_empty() {
            return Vec::new();
        }
        let mut seen = HashSet::new();
        let weights: Vec<(u32, f64)> = self
            .params
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
        let mut first = self.rank(&weights, k.max(self.params.rm3.map_or(0, |r| r.fb_docs)));
        let Some(rm3) = self.params.rm3 else {
            first.truncate(k);
            return first;
        };
        let expanded = feedback_query(&weights, &first, &self.doc_terms, &self.terms, &rm3);
        self.rank(&expanded, k)
    }

    fn rank(&self, weights: &[(u32, f64)], k: usize) -> Vec<(usize, f64)> {
        let mut scores = vec![0.0_f64; self.ids.len()];
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
                let ia = self.ids.get(a.0).map(String::as_str);
                let ib = self.ids.get(b.0).map(String::as_str);
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

/// Term ids by stemmed term, and each raw keyword's id, so each distinct
/// keyword is stemmed once.
#[derive(Default)]
struct Vocabulary {
    vocab: HashMap<String, u32>,
    terms: Vec<String>,
    keyword_ids: HashMap<String, u32>,
}

impl Vocabulary {
    /// The id of `keyword`'s stem, numbering a new term.
    fn id(&mut self, keyword: String, analyzer: &Analyzer) -> u32 {
        if let Some(&id) = self.keyword_ids.get(&keyword) {
            return id;
        }
        let term = analyzer.stem(keyword.clone());
        let id = match self.vocab.get(&term) {
            Some(&id) => id,
            None => {
                let id = u32::try_from(self.terms.len()).unwrap_or(u32::MAX);
                self.vocab.insert(term.clone(), id);
                self.terms.push(term);
                id
            }
        };
        self.keyword_ids.insert(keyword, id);
        id
    }
}

#[cfg(test)]
mod tests;
