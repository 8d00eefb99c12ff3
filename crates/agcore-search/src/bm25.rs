//! Relevance scorers: [`TextOverlap`] (Dice coefficient) and [`Bm25`], with
//! BM25's published constants ([`DEFAULT_K1`], [`DEFAULT_B`]) and the
//! variants SQLite FTS5's `bm25()` computes ([`Bm25::fts5_idf`],
//! [`fts5_tf_part`]), which the database backends rank with.

use std::collections::{HashMap, HashSet};

/// BM25's term-frequency saturation `k1`: 1.2, the value of Robertson &
/// Zaragoza (2009), Lucene and SQLite FTS5's `bm25()`. Every BM25 of the
/// workspace (in-memory, database backends) uses it.
pub const DEFAULT_K1: f64 = 1.2;

/// BM25's length normalisation `b`: 0.75, the value of Robertson &
/// Zaragoza (2009), Lucene and SQLite FTS5's `bm25()`.
pub const DEFAULT_B: f64 = 0.75;

/// The largest value BM25's tf part reaches with [`DEFAULT_K1`]: `k1 + 1`
/// (2.2), the per-term score bound (times idf) of pruned top-k searches.
pub const MAX_TF_PART: f64 = DEFAULT_K1 + 1.0;

/// Scores documents against a query. Both sides are term lists produced by
/// [`extract_keywords`](crate::extract_keywords) (duplicates = term frequency).
///
/// A scorer sees the whole candidate set at once because corpus statistics
/// (BM25's document frequencies and average length) come from it. The score
/// of one document never depends on the order of the others.
pub trait Scorer: Send + Sync {
    /// One score per document, in the order given; higher is more relevant,
    /// never negative, never NaN.
    fn score_all(&self, query: &[String], documents: &[Vec<String>]) -> Vec<f64>;

    /// A short name for logs and reports (`"bm25"`, `"text_overlap"`).
    fn name(&self) -> &'static str;
}

/// TextOverlap: the Dice coefficient
/// `2·|Q ∩ D| / (|Q| + |D|)` between the sets of n-grams (keywords; CJK text
/// contributes character bigrams) of the query and of the document.
///
/// Scores are in `[0, 1]`; 1 means the same term sets. Source: Dice, L. R.
/// (1945), "Measures of the Amount of Ecologic Association Between Species".
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TextOverlap;

impl TextOverlap {
    /// Dice coefficient of two term lists (as sets), in `[0, 1]`; 0 when either is empty.
    pub fn dice(query: &[String], document: &[String]) -> f64 {
        let q: HashSet<&str> = query.iter().map(String::as_str).collect();
        let d: HashSet<&str> = document.iter().map(String::as_str).collect();
        if q.is_empty() || d.is_empty() {
            return 0.0;
        }
        let common = q.intersection(&d).count();
        // usize → f64 is exact below 2^53 terms.
        #[allow(clippy::cast_precision_loss)]
        let score = 2.0 * common as f64 / (q.len() + d.len()) as f64;
        score.clamp(0.0, 1.0)
    }
}

impl Scorer for TextOverlap {
    fn score_all(&self, query: &[String], documents: &[Vec<String>]) -> Vec<f64> {
        documents.iter().map(|d| Self::dice(query, d)).collect()
    }

    fn name(&self) -> &'static str {
        "text_overlap"
    }
}

/// Okapi BM25 (Robertson & Zaragoza 2009, "The Probabilistic Relevance
/// Framework: BM25 and Beyond", Foundations and Trends in IR 3(4)):
///
/// `score(D, Q) = Σ_{t ∈ Q} idf(t) · tf·(k1 + 1) / (tf + k1·(1 − b + b·|D|/avgdl))`
///
/// with the non-negative idf `ln(1 + (N − n_t + 0.5) / (n_t + 0.5))` (as in
/// Lucene), so scores are ≥ 0 and unbounded above. Each distinct query term
/// counts once.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Bm25 {
    /// Term-frequency saturation, ≥ 0 (default [`DEFAULT_K1`], 1.2).
    pub k1: f64,
    /// Length normalisation, in `[0, 1]` (default [`DEFAULT_B`], 0.75).
    pub b: f64,
}

impl Default for Bm25 {
    /// `k1 = `[`DEFAULT_K1`], `b = `[`DEFAULT_B`].
    fn default() -> Self {
        Self {
            k1: DEFAULT_K1,
            b: DEFAULT_B,
        }
    }
}

impl Bm25 {
    /// BM25 with the given parameters; `k1` is clamped to ≥ 0 and `b` to
    /// `[0, 1]` (NaN becomes the default).
    pub fn new(k1: f64, b: f64) -> Self {
        let d = Self::default();
        Self {
            k1: if k1.is_nan() { d.k1 } else { k1.max(0.0) },
            b: if b.is_nan() { d.b } else { b.clamp(0.0, 1.0) },
        }
    }

    /// The idf of a term found in `df` of `n` documents (≥ 0).
    pub fn idf(n: f64, df: f64) -> f64 {
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(0.0)
    }

    /// The idf of SQLite FTS5's `bm25()`: `ln((N − df + 0.5) / (df + 0.5))`,
    /// or `1e-6` when that is not positive. The database backends rank with
    /// it (with [`DEFAULT_K1`], [`DEFAULT_B`] and [`fts5_tf_part`]), so their
    /// scores agree.
    pub fn fts5_idf(n: f64, df: f64) -> f64 {
        let idf = ((n - df + 0.5) / (df + 0.5)).ln();
        if idf <= 0.0 { 1e-6 } else { idf }
    }

    /// The length normalisation of a field of mean length `avg_len` as the
    /// line `K = a + c·len` (`K = k1·(1 − b + b·len/avg)`), for a database
    /// that evaluates `x = Σ_f w_f·tf_f / K_f` per row and scores
    /// `idf·(k1 + 1)·(1 − 1/(x + 1))` — [`Self::tf_part`] for one field,
    /// [`Bm25F::tf_part`](crate::Bm25F::tf_part) for two: `(k1·(1 − b),
    /// k1·b/avg)`, or `(k1, 0)` when `avg_len` is not positive and finite
    /// (no length normalisation).
    pub fn linear_norm(&self, avg_len: f64) -> (f64, f64) {
        if avg_len > 0.0 && avg_len.is_finite() {
            (self.k1 * (1.0 - self.b), self.k1 * self.b / avg_len)
        } else {
            (self.k1, 0.0)
        }
    }

    /// The saturated, length-normalised term-frequency part for `tf`
    /// occurrences in a document of `doc_len` terms.
    pub fn tf_part(&self, tf: f64, doc_len: f64, avg_len: f64) -> f64 {
        let norm = if avg_len > 0.0 {
            doc_len / avg_len
        } else {
            1.0
        };
        let denom = tf + self.k1 * (1.0 - self.b + self.b * norm);
        if denom > 0.0 {
            tf * (self.k1 + 1.0) / denom
        } else {
            0.0
        }
    }
}

/// BM25's tf part as SQLite FTS5's `bm25()` computes it, with
/// [`DEFAULT_K1`] and [`DEFAULT_B`]:
/// `tf·(k1 + 1) / (tf + k1·(1 − b + b·len/avg_len))` (Robertson & Zaragoza
/// 2009), and `tf·(k1 + 1) / (tf + k1)` when `avg_len` is not positive.
///
/// The operations run in FTS5's order (`b·len` before the division by
/// `avg_len`), so the floating-point result equals FTS5's bit for bit; it
/// can differ from [`Bm25::tf_part`] in the last bit.
pub fn fts5_tf_part(tf: f64, len: f64, avg_len: f64) -> f64 {
    const K1: f64 = DEFAULT_K1;
    const B: f64 = DEFAULT_B;
    if avg_len > 0.0 {
        (tf * (K1 + 1.0)) / (tf + K1 * (1.0 - B + B * len / avg_len))
    } else {
        (tf * (K1 + 1.0)) / (tf + K1)
    }
}

impl Scorer for Bm25 {
    #[allow(clippy::cast_precision_loss)]
    fn score_all(&self, query: &[String], documents: &[Vec<String>]) -> Vec<f64> {
        let terms: HashSet<&str> = query.iter().map(String::as_str).collect();
        let n = documents.len() as f64;
        let total: usize = documents.iter().map(Vec::len).sum();
        let avg_len = if documents.is_empty() {
            0.0
        } else {
            total as f64 / n
        };
        let tfs: Vec<HashMap<&str, usize>> = documents
            .iter()
            .map(|d| {
                let mut m = HashMap::new();
                for t in d.iter().map(String::as_str).filter(|t| terms.contains(t)) {
                    *m.entry(t).or_insert(0) += 1;
                }
                m
            })
            .collect();
        let mut df: HashMap<&str, usize> = HashMap::new();
        for m in &tfs {
            for t in m.keys() {
                *df.entry(t).or_insert(0) += 1;
            }
        }
        documents
            .iter()
            .zip(&tfs)
            .map(|(doc, m)| {
                m.iter()
                    .map(|(t, &tf)| {
                        let df = df.get(t).copied().unwrap_or(0) as f64;
                        Self::idf(n, df) * self.tf_part(tf as f64, doc.len() as f64, avg_len)
                    })
                    .sum::<f64>()
            })
            .collect()
    }

    fn name(&self) -> &'static str {
        "bm25"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn dice_known_values() {
        assert!((TextOverlap::dice(&terms("a b"), &terms("a b")) - 1.0).abs() < 1e-12);
        assert!((TextOverlap::dice(&terms("a b"), &terms("a c")) - 0.5).abs() < 1e-12);
        assert_eq!(TextOverlap::dice(&terms("a"), &[]), 0.0);
    }

    #[test]
    fn bm25_prefers_rarer_terms_and_shorter_documents() {
        let docs = vec![
            terms("rust memory"),
            terms("rust memory store with many more words here"),
            terms("python code"),
            terms("rust compiler"),
        ];
        let s = Bm25::default().score_all(&terms("memory"), &docs);
        assert!(s[0] > s[1], "{s:?}");
        assert_eq!(s[2], 0.0);
        let s = Bm25::default().score_all(&terms("rust memory"), &docs);
        assert!(s[0] > s[3], "{s:?}");
    }

    #[test]
    fn fts5_tf_part_is_bm25_up_to_rounding() {
        let bm25 = Bm25::default();
        for (tf, len, avg) in [(1.0, 3.0, 5.0), (4.0, 40.0, 7.5), (2.0, 1.0, 0.0)] {
            let a = fts5_tf_part(tf, len, avg);
            assert!((a - bm25.tf_part(tf, len, avg)).abs() <= 1e-12 * a, "{a}");
            assert!(a <= MAX_TF_PART);
        }
    }

    #[test]
    fn bm25_params_are_sanitised() {
        let b = Bm25::new(f64::NAN, 3.0);
        assert_eq!(b.k1, 1.2);
        assert_eq!(b.b, 1.0);
    }
}
