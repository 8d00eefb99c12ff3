//! Ranking metrics (binary relevance) and latency percentiles.

use std::collections::HashSet;
use std::time::Duration;

use serde::Serialize;

/// recall@k: the share of the relevant ids found in the first `k` of
/// `ranked`; 0 when `relevant` is empty.
pub fn recall_at(ranked: &[String], relevant: &HashSet<String>, k: usize) -> f64 {
    if relevant.is_empty() {
        return 0.0;
    }
    let found = distinct_hits(ranked.iter().take(k), relevant);
    ratio(found, relevant.len())
}

/// nDCG@k with binary relevance (Järvelin & Kekäläinen 2002, "Cumulated
/// gain-based evaluation of IR techniques", ACM TOIS 20(4)):
/// `DCG = Σ_{i<k, ranked[i] relevant} 1/log2(i + 2)` over the ideal DCG of
/// `min(|relevant|, k)` relevant results first. A repeated id counts once.
pub fn ndcg_at(ranked: &[String], relevant: &HashSet<String>, k: usize) -> f64 {
    let mut seen = HashSet::new();
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .filter(|(_, id)| relevant.contains(*id) && seen.insert(id.as_str()))
        .map(|(i, _)| discount(i))
        .sum();
    let ideal: f64 = (0..relevant.len().min(k)).map(discount).sum();
    if ideal > 0.0 { dcg / ideal } else { 0.0 }
}

fn discount(rank: usize) -> f64 {
    1.0 / (ratio(rank, 1) + 2.0).log2()
}

fn distinct_hits<'a>(ids: impl Iterator<Item = &'a String>, relevant: &HashSet<String>) -> usize {
    ids.filter(|id| relevant.contains(*id))
        .collect::<HashSet<_>>()
        .len()
}

#[allow(clippy::cast_precision_loss)]
fn ratio(a: usize, b: usize) -> f64 {
    a as f64 / b as f64
}

/// The deepest k of the recall@k curve (`--plot`).
pub const CURVE_DEPTH: usize = 50;

/// Mean recall@5, recall@10 and nDCG@10 over a group of queries.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Scores {
    /// The group: `"1-4"`, a category, or `"all"`.
    pub label: String,
    /// Queries scored.
    pub questions: usize,
    /// Mean recall@5.
    pub recall_at_5: f64,
    /// Mean recall@10.
    pub recall_at_10: f64,
    /// Mean nDCG@10.
    pub ndcg_at_10: f64,
    /// Mean recall@k for k = 1 … [`CURVE_DEPTH`] (index k − 1).
    pub recall_curve: Vec<f64>,
}

/// Accumulates per-query metrics.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    n: usize,
    r5: f64,
    r10: f64,
    ndcg: f64,
    curve: Vec<f64>,
}

impl Accumulator {
    /// Adds one query's ranking.
    pub fn add(&mut self, ranked: &[String], relevant: &HashSet<String>) {
        self.n += 1;
        self.r5 += recall_at(ranked, relevant, 5);
        self.r10 += recall_at(ranked, relevant, 10);
        self.ndcg += ndcg_at(ranked, relevant, 10);
        self.curve.resize(CURVE_DEPTH, 0.0);
        for (k, sum) in self.curve.iter_mut().enumerate() {
            *sum += recall_at(ranked, relevant, k + 1);
        }
    }

    /// Adds another accumulator.
    pub fn merge(&mut self, other: &Self) {
        self.n += other.n;
        self.r5 += other.r5;
        self.r10 += other.r10;
        self.ndcg += other.ndcg;
        self.curve.resize(CURVE_DEPTH, 0.0);
        for (sum, x) in self.curve.iter_mut().zip(&other.curve) {
            *sum += x;
        }
    }

    /// The means, labelled.
    pub fn scores(&self, label: &str) -> Scores {
        let mean = |x: f64| {
            if self.n == 0 {
                0.0
            } else {
                x / ratio(self.n, 1)
            }
        };
        Scores {
            label: label.to_owned(),
            questions: self.n,
            recall_at_5: mean(self.r5),
            recall_at_10: mean(self.r10),
            ndcg_at_10: mean(self.ndcg),
            recall_curve: self.curve.iter().map(|x| mean(*x)).collect(),
        }
    }
}

/// Query latency summary, in milliseconds.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Latency {
    /// Median.
    pub p50_ms: f64,
    /// 99th percentile (nearest rank).
    pub p99_ms: f64,
    /// Mean.
    pub mean_ms: f64,
}

impl Latency {
    /// Nearest-rank percentiles of `samples`.
    pub fn of(samples: &mut [Duration]) -> Self {
        if samples.is_empty() {
            return Self::default();
        }
        samples.sort_unstable();
        let pick = |p: usize| {
            let rank = (p * samples.len()).div_ceil(100).max(1) - 1;
            samples.get(rank).copied().unwrap_or_default().as_secs_f64() * 1e3
        };
        let total: f64 = samples.iter().map(Duration::as_secs_f64).sum();
        Self {
            p50_ms: pick(50),
            p99_ms: pick(99),
            mean_ms: total * 1e3 / ratio(samples.len(), 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(s: &[&str]) -> Vec<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    fn set(s: &[&str]) -> HashSet<String> {
        s.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn recall_counts_distinct_relevant_hits() {
        let ranked = ids(&["a", "b", "c", "d", "e", "f"]);
        assert_eq!(recall_at(&ranked, &set(&["a", "f"]), 5), 0.5);
        assert_eq!(recall_at(&ranked, &set(&["a", "f"]), 10), 1.0);
        assert_eq!(recall_at(&ranked, &set(&[]), 10), 0.0);
    }

    #[test]
    fn ndcg_known_values() {
        assert!((ndcg_at(&ids(&["a", "b"]), &set(&["a"]), 10) - 1.0).abs() < 1e-12);
        let v = ndcg_at(&ids(&["x", "a"]), &set(&["a"]), 10);
        assert!((v - 1.0 / 3f64.log2()).abs() < 1e-12);
        let v = ndcg_at(&ids(&["a", "x", "b"]), &set(&["a", "b"]), 10);
        assert!((v - (1.0 + 0.5) / (1.0 + 1.0 / 3f64.log2())).abs() < 1e-12);
    }

    #[test]
    fn latency_percentiles() {
        let mut s: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        let l = Latency::of(&mut s);
        assert_eq!(l.p50_ms, 50.0);
        assert_eq!(l.p99_ms, 99.0);
    }

    proptest::proptest! {
        #[test]
        fn metrics_are_bounded_and_monotone(
            ranked in proptest::collection::vec("[a-h]", 0..12),
            relevant in proptest::collection::hash_set("[a-h]", 0..5),
        ) {
            let r5 = recall_at(&ranked, &relevant, 5);
            let r10 = recall_at(&ranked, &relevant, 10);
            let ndcg = ndcg_at(&ranked, &relevant, 10);
            proptest::prop_assert!((0.0..=1.0).contains(&r5));
            proptest::prop_assert!(r5 <= r10 && r10 <= 1.0);
            proptest::prop_assert!((0.0..=1.0 + 1e-12).contains(&ndcg), "{}", ndcg);
            if r10 == 0.0 {
                proptest::prop_assert_eq!(ndcg, 0.0);
            }
        }
    }
}
