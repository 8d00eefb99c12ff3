//! The lexical overlap measure that re-scores dense hits (seed 003's
//! "semantic re-scoring, Jaccard"), over agcore's keywords (words, CJK
//! character bigrams).

use std::collections::HashSet;

use agcore_memory::retriever::unique_keywords;

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

/// The re-scored similarity of a dense hit: `(1 − w)·cosine + w·jaccard`,
/// `w` = `lexical_weight` clamped to `[0, 1]`.
pub fn rescore(cosine: f64, query: &str, text: &str, lexical_weight: f64) -> f64 {
    let w = lexical_weight.clamp(0.0, 1.0);
    (1.0 - w) * cosine + w * jaccard(query, text)
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
}
