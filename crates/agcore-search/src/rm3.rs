//! RM3 pseudo-relevance feedback: [`Rm3Config`] and the expanded query
//! [`ContextualIndex`](crate::ContextualIndex) searches again with.

use std::collections::HashMap;

/// RM3 pseudo-relevance feedback (relevance model RM1 of Lavrenko & Croft
/// 2001, "Relevance-Based Language Models", SIGIR; interpolated with the
/// original query as RM3 in Abdul-Jaleel et al. 2004, "UMass at TREC 2004:
/// Novelty and HARD"): the first pass's top `fb_docs` documents, weighted by
/// their normalised scores, give a term distribution; its `fb_terms` most
/// likely terms are mixed into the query with weight
/// `1 − original_query_weight`, and the index is searched again.
///
/// Defaults are Anserini's published RM3 defaults (Yang, Fang & Lin 2017,
/// "Anserini: Enabling the Use of Lucene for Information Retrieval
/// Research", SIGIR): 10 documents, 10 terms, original query weight 0.5.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Rm3Config {
    /// Feedback documents (top of the first pass), ≥ 1. Default 10.
    pub fb_docs: usize,
    /// Expansion terms kept, ≥ 1. Default 10.
    pub fb_terms: usize,
    /// Weight of the original query, in `[0, 1]`. Default 0.5.
    pub original_query_weight: f64,
}

impl Default for Rm3Config {
    fn default() -> Self {
        Self {
            fb_docs: 10,
            fb_terms: 10,
            original_query_weight: 0.5,
        }
    }
}

impl Rm3Config {
    /// RM3 with the given settings; counts are raised to ≥ 1 and the weight
    /// clamped to `[0, 1]` (NaN becomes 0.5).
    pub fn new(fb_docs: usize, fb_terms: usize, original_query_weight: f64) -> Self {
        Self {
            fb_docs: fb_docs.max(1),
            fb_terms: fb_terms.max(1),
            original_query_weight: if original_query_weight.is_nan() {
                0.5
            } else {
                original_query_weight.clamp(0.0, 1.0)
            },
        }
    }
}

/// The RM3 query (Lavrenko & Croft 2001; Abdul-Jaleel et al. 2004):
/// `λ·P(t|Q) + (1 − λ)·P(t|R)`, where `P(t|Q)` is uniform over the original
/// query terms and the relevance model `P(t|R) = Σ_D w_D·tf(t, D)/|D|` runs
/// over the first pass's top `fb_docs` documents with weights `w_D` their
/// scores normalised to sum 1 (as in Anserini), cut to its `fb_terms` most
/// probable terms (ties by term text) and renormalised.
///
/// `query` holds (term, weight) pairs; `first` is the first pass, best
/// first; `doc_terms[d]` is document `d`'s (term, frequency) list and length;
/// `terms[t]` is term `t`'s text. The result is scaled so each original term
/// keeps the weight `λ·1 + …` (only ratios matter for ranking).
pub(crate) fn feedback_query(
    query: &[(u32, f64)],
    first: &[(usize, f64)],
    doc_terms: &[(Vec<(u32, f64)>, f64)],
    terms: &[String],
    rm3: &Rm3Config,
) -> Vec<(u32, f64)> {
    let top: Vec<&(usize, f64)> = first.iter().take(rm3.fb_docs).collect();
    let total: f64 = top.iter().map(|(_, s)| *s).sum();
    if top.is_empty() || total <= 0.0 || !total.is_finite() {
        return query.to_vec();
    }
    let mut model: HashMap<u32, f64> = HashMap::new();
    for &&(doc, score) in &top {
        let Some((tfs, len)) = doc_terms.get(doc) else {
            continue;
        };
        if *len <= 0.0 {
            continue;
        }
        let w = score / total;
        for &(t, tf) in tfs {
            *model.entry(t).or_insert(0.0) += w * tf / len;
        }
    }
    let text = |t: u32| terms.get(t as usize).map_or("", String::as_str);
    let mut ranked: Vec<(u32, f64)> = model.into_iter().filter(|(_, p)| *p > 0.0).collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| text(a.0).cmp(text(b.0))));
    ranked.truncate(rm3.fb_terms);
    let mass: f64 = ranked.iter().map(|(_, p)| p).sum();
    let q_mass: f64 = query.iter().map(|(_, w)| w).sum();
    if mass <= 0.0 || q_mass <= 0.0 {
        return query.to_vec();
    }
    let lambda = rm3.original_query_weight;
    let mut mixed: Vec<(u32, f64)> = query
        .iter()
        .map(|&(t, w)| (t, lambda * w / q_mass))
        .collect();
    for (t, p) in ranked {
        let add = (1.0 - lambda) * p / mass;
        match mixed.iter_mut().find(|(m, _)| *m == t) {
            Some(entry) => entry.1 += add,
            None => mixed.push((t, add)),
        }
    }
    // Scale back so original terms weigh about 1 (scores stay comparable to
    // the first pass); ranking depends only on the ratios.
    let scale = if lambda > 0.0 {
        q_mass / lambda
    } else {
        q_mass
    };
    mixed
        .into_iter()
        .map(|(t, w)| (t, w * scale))
        .filter(|(_, w)| *w > 0.0 && w.is_finite())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds_feedback_terms_and_keeps_query_terms() {
        let terms: Vec<String> = ["marathon", "boston", "legs"].map(String::from).to_vec();
        let docs = vec![(vec![(0, 1.0), (1, 1.0)], 2.0), (vec![(2, 1.0)], 1.0)];
        let q = feedback_query(
            &[(0, 1.0)],
            &[(0, 3.0)],
            &docs,
            &terms,
            &Rm3Config::default(),
        );
        let w = |t: u32| q.iter().find(|(x, _)| *x == t).map(|(_, w)| *w);
        assert!(w(0).unwrap() > w(1).unwrap());
        assert!(w(1).unwrap() > 0.0);
        assert_eq!(w(2), None);
    }

    #[test]
    fn no_feedback_leaves_the_query() {
        let q = feedback_query(&[(0, 1.0)], &[], &[], &[], &Rm3Config::default());
        assert_eq!(q, vec![(0, 1.0)]);
    }
}
