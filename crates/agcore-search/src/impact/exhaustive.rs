//! The exhaustive reference ranking of an impact-ordered index: every
//! document scored with the collection statistics counted from the
//! documents themselves (no index, no pruning). A backend's pruned
//! [`top_k`](super::top_k) is tested and measured against it.

use std::collections::HashMap;

use super::layout::{FieldDoc, ScopeStats, term_frequencies};
use super::scorer::{Ranking, Scorer};

/// A document's own and context term frequencies with both lengths.
struct Counted<'a> {
    len: u32,
    tfs: HashMap<&'a str, u32>,
    context: Option<(u32, HashMap<&'a str, u32>)>,
}

impl<'a> Counted<'a> {
    fn new(doc: &FieldDoc<'a>, skip: usize) -> Self {
        let count = |text: &'a str, skip: usize| {
            let (len, tfs) = term_frequencies(text, skip);
            (len, tfs.into_iter().collect::<HashMap<_, _>>())
        };
        let (len, tfs) = count(doc.terms, skip);
        Self {
            len,
            tfs,
            context: doc.context.map(|c| count(c, 0)),
        }
    }

    fn holds(&self, term: &str) -> bool {
        self.tfs.contains_key(term)
            || self
                .context
                .as_ref()
                .is_some_and(|c| c.1.contains_key(term))
    }
}

/// Scores every document of `docs` that `wanted` keeps (by index) for the
/// distinct query `terms` (their parts added in query order), ranked by
/// `ranking` with the statistics of all of `docs`: N, each term's document
/// frequency in either field, the mean own length past the first `skip`
/// tokens of each document, the mean context length of the documents with a
/// context field. Returns `(index, score)` for each kept document scoring
/// above 0 (and at least `min_score`), in document order.
#[must_use]
pub fn exhaustive(
    docs: &[FieldDoc<'_>],
    terms: &[String],
    (ranking, skip, min_score): (Ranking, usize, Option<f64>),
    wanted: impl Fn(usize) -> bool,
) -> Vec<(usize, f64)> {
    let counted: Vec<Counted<'_>> = docs.iter().map(|d| Counted::new(d, skip)).collect();
    let n = i64::try_from(counted.len()).unwrap_or(i64::MAX);
    let tokens: i64 = counted.iter().map(|c| i64::from(c.len)).sum();
    let contexts = counted.iter().filter_map(|c| c.context.as_ref());
    let (grouped, context_tokens) =
        contexts.fold((0i64, 0i64), |(g, t), c| (g + 1, t + i64::from(c.0)));
    let stats = ScopeStats::from_counts(n, tokens, grouped, context_tokens);
    let scorer = Scorer::new(ranking, &stats);
    #[allow(clippy::cast_precision_loss)]
    let idfs: Vec<(&str, f64)> = terms
        .iter()
        .map(|t| {
            let df = counted.iter().filter(|c| c.holds(t)).count();
            let idf = if df > 0 {
                scorer.idf(stats.docs, df as f64)
            } else {
                0.0
            };
            (t.as_str(), idf)
        })
        .collect();
    let mut out = Vec::new();
    for (i, c) in counted.iter().enumerate() {
        if !wanted(i) {
            continue;
        }
        let mut score = 0.0;
        for &(term, idf) in &idfs {
            let tf = c.tfs.get(term).copied().unwrap_or(0);
            let (clen, ctf) = c
                .context
                .as_ref()
                .map_or((0, 0), |(l, m)| (*l, m.get(term).copied().unwrap_or(0)));
            score += idf * scorer.part(tf, c.len, ctf, clen);
        }
        if score > 0.0 && score.is_finite() && min_score.is_none_or(|m| score >= m) {
            out.push((i, score));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bm25;

    #[test]
    fn scores_like_bm25_and_keeps_only_wanted_matches() {
        let docs = [
            FieldDoc::plain(1, "s apple pie"),
            FieldDoc::plain(2, "s apple apple tart"),
            FieldDoc::plain(3, "s banana"),
        ];
        let terms = vec!["apple".to_owned()];
        let all = exhaustive(&docs, &terms, (Ranking::Fts5, 1, None), |_| true);
        assert_eq!(all.iter().map(|h| h.0).collect::<Vec<_>>(), [0, 1]);
        let idf = Bm25::fts5_idf(3.0, 2.0);
        let avg = 6.0 / 3.0;
        let want = idf * crate::fts5_tf_part(2.0, 3.0, avg);
        assert!((all[1].1 - want).abs() < 1e-12);
        assert!(exhaustive(&docs, &terms, (Ranking::Fts5, 1, None), |i| i != 1).len() == 1);
        assert!(exhaustive(&docs, &terms, (Ranking::Fts5, 1, Some(1e9)), |_| true).is_empty());
    }

    #[test]
    fn context_terms_count_in_document_frequency() {
        let docs = [
            FieldDoc {
                doc: 1,
                terms: "tea",
                context: Some("cake"),
            },
            FieldDoc::plain(2, "cake"),
        ];
        let ranking = Ranking::Fields {
            bm25: Bm25::default(),
            weight: 0.5,
        };
        let hits = exhaustive(&docs, &["cake".to_owned()], (ranking, 0, None), |_| true);
        assert_eq!(hits.len(), 2);
        assert!(hits[1].1 > hits[0].1, "the own field outweighs the context");
    }
}
