//! The lexical overlap measures that re-score dense hits (seed 003's
//! "semantic re-scoring, Jaccard/LCS"), over agcore's keywords (words, CJK
//! character bigrams).

use std::collections::HashSet;

use agcore_memory::retriever::{extract_keywords, unique_keywords};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which keyword overlap re-scores a hit (`lexical_measure` of a `simple`
/// store).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum LexicalMeasure {
    /// [`jaccard`]: the keyword sets, order ignored (the default).
    #[default]
    Jaccard,
    /// [`lcs`]: the longest common subsequence of the keyword sequences,
    /// so word order counts.
    Lcs,
}

impl LexicalMeasure {
    /// The overlap of `query` and `text` in `[0, 1]` by this measure.
    pub fn score(self, query: &str, text: &str) -> f64 {
        match self {
            Self::Jaccard => jaccard(query, text),
            Self::Lcs => lcs(query, text),
        }
    }
}

/// Jaccard similarity `|Q ∩ D| / |Q ∪ D|` of the keyword sets of `query`
/// and `text`, in `[0, 1]`; 0 when either has no keyword. Source: Jaccard,
/// P. (1901), "Étude comparative de la distribution florale".
pub fn jaccard(query: &str, text: &str) -> f64 {
    let q: HashSet<String> = unique_keywords(query).into_iter().collect();
    let d: HashSet<String> = unique_keywords(text).into_iter().collect();
    let union = q.union(&d).count();
    if union == 0 {
        return 0.0;
    }
    // usize → f64 is exact below 2^53 keywords.
    #[allow(clippy::cast_precision_loss)]
    let score = q.intersection(&d).count() as f64 / union as f64;
    score
}

/// LCS similarity: the F-measure (β = 1) of the longest common subsequence
/// of the keyword sequences of `query` (length m) and `text` (length n),
/// `2·L / (m + n)`, in `[0, 1]`; 0 when either has no keyword. Source:
/// Lin, C.-Y. (2004), "ROUGE: A Package for Automatic Evaluation of
/// Summaries" (ROUGE-L). Cost O(m·n) time, O(min(m, n)) space.
pub fn lcs(query: &str, text: &str) -> f64 {
    let q = extract_keywords(query);
    let d = extract_keywords(text);
    if q.is_empty() || d.is_empty() {
        return 0.0;
    }
    let (long, short) = if q.len() >= d.len() {
        (&q, &d)
    } else {
        (&d, &q)
    };
    let mut previous = vec![0usize; short.len() + 1];
    let mut current = vec![0usize; short.len() + 1];
    for a in long {
        for (j, b) in short.iter().enumerate() {
            let diagonal = previous.get(j).copied().unwrap_or(0);
            let up = previous.get(j + 1).copied().unwrap_or(0);
            let left = current.get(j).copied().unwrap_or(0);
            let value = if a == b { diagonal + 1 } else { up.max(left) };
            if let Some(cell) = current.get_mut(j + 1) {
                *cell = value;
            }
        }
        std::mem::swap(&mut previous, &mut current);
    }
    let length = previous.last().copied().unwrap_or(0);
    // usize → f64 is exact below 2^53 keywords.
    #[allow(clippy::cast_precision_loss)]
    let score = 2.0 * length as f64 / (q.len() + d.len()) as f64;
    score
}

/// The re-scored similarity of a dense hit: `(1 − w)·cosine + w·jaccard`,
/// `w` = `lexical_weight` clamped to `[0, 1]`.
pub fn rescore(cosine: f64, query: &str, text: &str, lexical_weight: f64) -> f64 {
    rescore_with(LexicalMeasure::Jaccard, cosine, query, text, lexical_weight)
}

/// [`rescore`] with the overlap `measure`: `(1 − w)·cosine + w·overlap`.
pub fn rescore_with(
    measure: LexicalMeasure,
    cosine: f64,
    query: &str,
    text: &str,
    lexical_weight: f64,
) -> f64 {
    let w = lexical_weight.clamp(0.0, 1.0);
    (1.0 - w) * cosine + w * measure.score(query, text)
}

/// The first `max_chars` characters of `text` (whole text when shorter).
pub fn truncate_chars(text: &str, max_chars: usize) -> &str {
    match text.char_indices().nth(max_chars) {
        Some((at, _)) => text.get(..at).unwrap_or(text),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jaccard_of_words_and_chinese() {
        assert!((jaccard("green tea", "green tea") - 1.0).abs() < 1e-9);
        assert!(jaccard("green tea", "black coffee") < 1e-9);
        let partial = jaccard("喜欢绿茶", "用户喜欢喝绿茶");
        assert!(partial > 0.2 && partial < 1.0, "{partial}");
        assert_eq!(truncate_chars("你好世界", 2), "你好");
        assert_eq!(truncate_chars("ab", 5), "ab");
        assert!((rescore(0.5, "a", "b", 0.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn lcs_counts_order_where_jaccard_does_not() {
        assert!((lcs("green tea", "green tea") - 1.0).abs() < 1e-9);
        assert!(lcs("green tea", "black coffee") < 1e-9);
        assert!(lcs("", "tea") < 1e-9);
        // Same keyword set, reversed order: Jaccard 1, LCS 2·1/6.
        let forward = "alice deploys server";
        let reversed = "server deploys alice";
        assert!((jaccard(forward, reversed) - 1.0).abs() < 1e-9);
        assert!((lcs(forward, reversed) - 1.0 / 3.0).abs() < 1e-9);
        assert!(lcs("喜欢绿茶", "用户喜欢喝绿茶") > 0.0);
        let measure: LexicalMeasure = serde_json::from_str("\"lcs\"").unwrap();
        assert_eq!(measure, LexicalMeasure::Lcs);
        assert!((rescore_with(measure, 0.0, forward, forward, 1.0) - 1.0).abs() < 1e-9);
    }
}
