//! Combining two similarity lists of the same documents (a document's own
//! vector and its window vector) into one.

use std::collections::HashMap;

/// The dense list of contextual embeddings: each document's similarity to
/// its own vector plus `weight` times its similarity to its window vector
/// (the embedding of its text read with its neighbours'), over
/// `1 + weight`:
///
/// `(cos(q, own) + weight · cos(q, window)) / (1 + weight)`
///
/// (document expansion with the surrounding text, here done by the encoder:
/// Günther et al. 2024, "Late Chunking: Contextual Chunk Embeddings Using
/// Long-Context Embedding Models"). `own` and `window` are `(id, cosine)`
/// lists (a repeated id keeps its first score). A document outside any
/// sequence (`in_sequence` false, and absent from `window`) keeps its own
/// similarity. A document missing from one list gets `floors` (own,
/// window) there — the list's lowest similarity when the list was cut at
/// its length (the document ranked below every listed one), else 0.
/// Returns every document of either list, best first, ties by id.
///
/// # Examples
/// ```
/// use agcore_search::fusion::combine_window;
/// let own = [("a".to_owned(), 0.9)];
/// let window = [("a".to_owned(), 0.6)];
/// let out = combine_window(&own, &window, 0.5, (0.0, 0.0), |_| true);
/// assert!((out[0].1 - (0.9 + 0.5 * 0.6) / 1.5).abs() < 1e-12);
/// ```
pub fn combine_window(
    own: &[(String, f64)],
    window: &[(String, f64)],
    weight: f64,
    floors: (f64, f64),
    in_sequence: impl Fn(&str) -> bool,
) -> Vec<(String, f64)> {
    let (own_floor, window_floor) = floors;
    let mut scores: HashMap<&str, (Option<f64>, Option<f64>)> = HashMap::new();
    for (id, s) in own {
        scores.entry(id).or_default().0.get_or_insert(*s);
    }
    for (id, s) in window {
        scores.entry(id).or_default().1.get_or_insert(*s);
    }
    let w = weight;
    let mut out: Vec<(String, f64)> = scores
        .into_iter()
        .map(|(id, (o, c))| {
            let own = o.unwrap_or(own_floor);
            let score = if c.is_some() || in_sequence(id) {
                (own + w * c.unwrap_or(window_floor)) / (1.0 + w)
            } else {
                own
            };
            (id.to_owned(), score)
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}

/// Time decay of a score: `2^(−age / half_life)` — 1 for a document of age
/// 0, ½ at one half-life. Both in seconds; a negative age counts as 0 and a
/// half-life below the smallest positive `f64` as that.
///
/// # Examples
/// ```
/// use agcore_search::fusion::half_life_decay;
/// assert_eq!(half_life_decay(3600.0, 3600.0), 0.5);
/// assert_eq!(half_life_decay(-5.0, 60.0), 1.0);
/// ```
pub fn half_life_decay(age_secs: f64, half_life_secs: f64) -> f64 {
    (-age_secs.max(0.0) / half_life_secs.max(f64::MIN_POSITIVE)).exp2()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(pairs: &[(&str, f64)]) -> Vec<(String, f64)> {
        pairs.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect()
    }

    #[test]
    fn combine_adds_the_weighted_window_similarity() {
        let out = combine_window(
            &list(&[("a", 0.9), ("b", 0.5)]),
            &list(&[("b", 0.9), ("c", 0.8)]),
            0.5,
            (0.5, 0.8),
            |_| true,
        );
        // a: (0.9 + 0.5 × 0.8) / 1.5; b: (0.5 + 0.5 × 0.9) / 1.5; c: (0.5 + 0.5 × 0.8) / 1.5.
        let expect = [
            ("a", (0.9 + 0.4) / 1.5),
            ("b", (0.5 + 0.45) / 1.5),
            ("c", (0.5 + 0.4) / 1.5),
        ];
        assert_eq!(out.len(), 3);
        for ((id, s), (eid, es)) in out.iter().zip(expect) {
            assert_eq!(id, eid);
            assert!((s - es).abs() < 1e-12, "{id}: {s} vs {es}");
        }
        assert!(combine_window(&[], &[], 0.5, (0.0, 0.0), |_| true).is_empty());
        let alone = combine_window(&list(&[("a", 0.3)]), &[], 0.5, (0.0, 0.0), |_| true);
        assert!((alone[0].1 - 0.2).abs() < 1e-12);
        // Outside a sequence a document keeps its own similarity; a list
        // not cut at its length gives missing documents 0.
        let out = combine_window(
            &list(&[("a", 0.3)]),
            &list(&[("b", 0.9)]),
            0.5,
            (0.0, 0.0),
            |id| id == "b",
        );
        assert_eq!(out[0].0, "a");
        assert_eq!(out[0].1, 0.3);
        assert_eq!(out[1].0, "b");
        assert!((out[1].1 - 0.3).abs() < 1e-12);
    }

    #[test]
    fn decay_halves_per_half_life() {
        assert_eq!(half_life_decay(0.0, 10.0), 1.0);
        assert_eq!(half_life_decay(20.0, 10.0), 0.25);
        assert!(half_life_decay(1.0, 0.0) >= 0.0);
    }
}
