//! Ranking a candidate list: the linear-scan search every backend can fall back on.

use std::cmp::Ordering;

use super::{Bm25, Scorer, index_terms, query_terms};
use crate::{MemoryError, MemoryItem, ScoredItem, SearchOptions};

/// Checks [`SearchOptions`]: a valid filter (its `limit` is ignored),
/// `limit ≥ 1` and a `min_score` that is not NaN.
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the problem.
pub fn validate_search_options(options: &SearchOptions) -> Result<(), MemoryError> {
    let mut filter = options.filter.clone();
    filter.limit = None;
    filter.validate()?;
    if options.limit == 0 {
        return Err(MemoryError::InvalidInput(
            "search limit must be at least 1".into(),
        ));
    }
    if options.min_score.is_some_and(f64::is_nan) {
        return Err(MemoryError::InvalidInput(
            "search min_score must not be NaN".into(),
        ));
    }
    Ok(())
}

/// Orders hits best first: score descending, ties by id ascending (deterministic).
pub fn compare_hits(a: &ScoredItem, b: &ScoredItem) -> Ordering {
    b.score
        .total_cmp(&a.score)
        .then_with(|| a.item.id.cmp(&b.item.id))
}

/// Ranks `candidates` against `query` with [`Bm25`] (default parameters) and
/// returns the best `options.limit`, best first.
///
/// Candidates not matching `options.filter` are dropped (its `limit` is
/// ignored); so are candidates sharing no keyword with the query (score 0) and
/// those scoring below `options.min_score`. Corpus statistics come from the
/// candidates that pass the filter. The query is tokenised with
/// [`query_terms`](super::query_terms) and candidates with [`index_terms`]
/// (the stores' analyzer, as their indexes do); the query is literal text,
/// and a query without terms returns nothing.
///
/// Cost: tokenises every candidate — O(total candidate text). Backends with an
/// index override [`MemoryStore::search`](crate::MemoryStore::search) instead.
///
/// # Errors
/// [`MemoryError::InvalidInput`] from [`validate_search_options`].
pub fn rank_items(
    query: &str,
    candidates: Vec<MemoryItem>,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>, MemoryError> {
    rank_items_with(&Bm25::default(), query, candidates, options)
}

/// [`rank_items`] with any [`Scorer`].
///
/// # Errors
/// As [`rank_items`].
pub fn rank_items_with(
    scorer: &dyn Scorer,
    query: &str,
    candidates: Vec<MemoryItem>,
    options: &SearchOptions,
) -> Result<Vec<ScoredItem>, MemoryError> {
    validate_search_options(options)?;
    let query_terms = query_terms(query);
    if query_terms.is_empty() {
        return Ok(Vec::new());
    }
    let candidates: Vec<MemoryItem> = candidates
        .into_iter()
        .filter(|item| options.filter.matches(item))
        .collect();
    let documents: Vec<Vec<String>> = candidates
        .iter()
        .map(|item| index_terms(&item.content))
        .collect();
    let scores = scorer.score_all(&query_terms, &documents);
    let hits: Vec<ScoredItem> = candidates
        .into_iter()
        .zip(scores)
        .filter(|(_, score)| *score > 0.0 && options.min_score.is_none_or(|min| *score >= min))
        .map(|(item, score)| ScoredItem { item, score })
        .collect();
    Ok(top_k(hits, options.limit))
}

/// Sorts hits with [`compare_hits`] and keeps the first `k`.
pub fn top_k(mut hits: Vec<ScoredItem>, k: usize) -> Vec<ScoredItem> {
    if hits.len() > k && k > 0 {
        hits.select_nth_unstable_by(k - 1, compare_hits);
        hits.truncate(k);
    }
    hits.sort_by(compare_hits);
    hits.truncate(k);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryFilter;

    fn items() -> Vec<MemoryItem> {
        vec![
            MemoryItem::new("a:1", "The user prefers concise answers"),
            MemoryItem::new("a:2", "Rust is the user's favourite language"),
            MemoryItem::new("b:1", "用户喜欢简洁的回答"),
            MemoryItem::new("b:2", "Deploy on Fridays is forbidden"),
        ]
    }

    #[test]
    fn ranks_matching_items_only() {
        let hits = rank_items("concise answers", items(), &SearchOptions::default()).unwrap();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].item.id, "a:1");
        let hits = rank_items("简洁回答", items(), &SearchOptions::default()).unwrap();
        assert_eq!(hits[0].item.id, "b:1");
    }

    #[test]
    fn filter_limit_and_min_score_apply() {
        let opts = SearchOptions::top_k(1).with_filter(MemoryFilter::with_prefix("a:"));
        let hits = rank_items("user", items(), &opts).unwrap();
        assert_eq!(hits.len(), 1);
        assert!(hits[0].item.id.starts_with("a:"));
        let opts = SearchOptions::default().with_min_score(1e9);
        assert!(rank_items("user", items(), &opts).unwrap().is_empty());
    }

    #[test]
    fn invalid_options_are_rejected() {
        let err = rank_items("x", items(), &SearchOptions::top_k(0)).unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)));
    }

    #[test]
    fn ties_break_by_id() {
        let docs = vec![
            MemoryItem::new("z", "same words"),
            MemoryItem::new("m", "same words"),
        ];
        let hits = rank_items("same words", docs, &SearchOptions::default()).unwrap();
        assert_eq!(hits[0].item.id, "m");
        assert_eq!(hits[1].item.id, "z");
    }
}
