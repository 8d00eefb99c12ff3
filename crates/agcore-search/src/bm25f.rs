//! [`Bm25F`]: the BM25F term weight over a document's own text and one
//! lower-weighted second field (the context field of neighbouring
//! documents).

use crate::bm25::Bm25;

/// BM25F over a document's own text and its context field (Robertson,
/// Zaragoza & Taylor 2004, "Simple BM25 extension to multiple weighted
/// fields", CIKM; per-field length normalisation as in Zaragoza et al. 2004,
/// "Microsoft Cambridge at TREC-13: Web and HARD tracks"): per field a
/// length-normalised frequency `tf_f / (1 − b + b·len_f/avglen_f)`, the
/// context one weighted, summed into `tf~`, then saturated once:
/// `tf~·(k1 + 1) / (k1 + tf~)`.
///
/// A term absent from the context field gets exactly [`Bm25::tf_part`] of its
/// own frequency (same operations, same floating-point result), so documents
/// without context rank as plain BM25 ranks them.
///
/// # Examples
/// ```
/// use agcore_search::{Bm25, Bm25F};
/// let f = Bm25F { bm25: Bm25::default(), avg_len: 8.0, avg_context_len: 16.0, weight: 0.5 };
/// assert_eq!(f.tf_part(1.0, 8.0, 0.0, 0.0), Bm25::default().tf_part(1.0, 8.0, 8.0));
/// assert!(f.tf_part(1.0, 8.0, 1.0, 16.0) > f.tf_part(1.0, 8.0, 0.0, 0.0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25F {
    /// k1 and b, shared by both fields.
    pub bm25: Bm25,
    /// Mean length (in terms) of the own-text field over all documents.
    pub avg_len: f64,
    /// Mean length (in terms) of the context field over the documents that
    /// have one.
    pub avg_context_len: f64,
    /// Weight of the context field (the own text weighs 1).
    pub weight: f64,
}

impl Bm25F {
    /// The term's saturated weight (idf excluded) for `tf` occurrences in
    /// an own text of `len` terms and `context_tf` in a context field of
    /// `context_len` terms. Finite and ≥ 0 for finite non-negative input,
    /// at most `k1 + 1`; grows with the frequencies and shrinks with the
    /// lengths.
    pub fn tf_part(&self, tf: f64, len: f64, context_tf: f64, context_len: f64) -> f64 {
        if context_tf <= 0.0 || self.weight <= 0.0 {
            return self.bm25.tf_part(tf, len, self.avg_len);
        }
        let own = tf / length_norm(self.bm25.b, len, self.avg_len);
        let context =
            self.weight * context_tf / length_norm(self.bm25.b, context_len, self.avg_context_len);
        saturate(self.bm25.k1, own + context)
    }
}

/// BM25's saturation of a (combined, length-normalised) term frequency:
/// `tf~·(k1 + 1) / (k1 + tf~)`, 0 when `tf~` is not positive and finite.
pub(crate) fn saturate(k1: f64, tf: f64) -> f64 {
    if tf > 0.0 && tf.is_finite() {
        tf * (k1 + 1.0) / (k1 + tf)
    } else {
        0.0
    }
}

/// BM25's length normalisation `1 − b + b·len/avg` (1 when `avg` is 0 or
/// the result is not positive and finite).
pub(crate) fn length_norm(b: f64, len: f64, avg: f64) -> f64 {
    let norm = if avg > 0.0 {
        1.0 - b + b * len / avg
    } else {
        1.0
    };
    if norm > 0.0 && norm.is_finite() {
        norm
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One word's score part as a database evaluates it with
    /// [`Bm25::linear_norm`]: `c·(1 − 1/(x + 1))`, `x = Σ w·tf / (a + k)`.
    fn linear(c: f64, fields: &[(f64, f64, f64, f64)]) -> f64 {
        let x: f64 = fields.iter().map(|&(w, tf, a, k)| w * tf / (a + k)).sum();
        c * (1.0 - 1.0 / (x + 1.0))
    }

    #[test]
    fn the_linear_form_of_one_field_is_bm25() {
        let bm25 = Bm25::default();
        let (a, c) = bm25.linear_norm(8.0);
        for (tf, len) in [(0.0, 3.0), (1.0, 8.0), (3.0, 20.0)] {
            let idf = Bm25::idf(1_000.0, 10.0);
            let sql = linear(idf * (bm25.k1 + 1.0), &[(1.0, tf, a, c * len)]);
            let reference = idf * bm25.tf_part(tf, len, 8.0);
            assert!((sql - reference).abs() <= 1e-12, "{sql} vs {reference}");
        }
        assert_eq!(bm25.linear_norm(0.0), (bm25.k1, 0.0));
    }

    #[test]
    fn the_linear_form_of_two_fields_is_bm25f() {
        let bm25f = Bm25F {
            bm25: Bm25::default(),
            avg_len: 8.0,
            avg_context_len: 16.0,
            weight: 0.5,
        };
        let (a1, c1) = bm25f.bm25.linear_norm(8.0);
        let (a2, c2) = bm25f.bm25.linear_norm(16.0);
        for (tf, len, ctf, clen) in [
            (1.0, 8.0, 0.0, 10.0),
            (0.0, 5.0, 2.0, 20.0),
            (2.0, 9.0, 1.0, 0.0),
        ] {
            let k1p = bm25f.bm25.k1 + 1.0;
            let sql = linear(k1p, &[(1.0, tf, a1, c1 * len), (0.5, ctf, a2, c2 * clen)]);
            let reference = bm25f.tf_part(tf, len, ctf, clen);
            assert!((sql - reference).abs() <= 1e-12, "{sql} vs {reference}");
        }
    }
    use proptest::prelude::*;

    fn bm25f() -> Bm25F {
        Bm25F {
            bm25: Bm25::default(),
            avg_len: 8.0,
            avg_context_len: 16.0,
            weight: 0.5,
        }
    }

    #[test]
    fn without_context_it_is_bm25_bit_for_bit() {
        let f = bm25f();
        for (tf, len) in [(1.0, 3.0), (2.0, 8.0), (7.0, 40.0)] {
            assert_eq!(
                f.tf_part(tf, len, 0.0, 12.0),
                Bm25::default().tf_part(tf, len, 8.0)
            );
        }
    }

    #[test]
    fn context_alone_scores_below_the_same_words_in_the_text() {
        let f = bm25f();
        let in_context = f.tf_part(0.0, 8.0, 1.0, 16.0);
        assert!(in_context > 0.0);
        assert!(in_context < f.tf_part(1.0, 8.0, 0.0, 16.0));
    }

    proptest! {
        #[test]
        fn scores_are_finite_bounded_and_monotone(
            tf in 0u32..50, len in 0u32..200, ctf in 0u32..50, clen in 0u32..400,
            avg in 0.0f64..100.0, cavg in 0.0f64..100.0, weight in 0.01f64..1.0,
        ) {
            let f = Bm25F { bm25: Bm25::default(), avg_len: avg, avg_context_len: cavg, weight };
            let (tf, len, ctf, clen) = (f64::from(tf), f64::from(len), f64::from(ctf), f64::from(clen));
            let s = f.tf_part(tf, len, ctf, clen);
            prop_assert!(s.is_finite() && s >= 0.0);
            prop_assert!(s <= f.bm25.k1 + 1.0);
            prop_assert!(f.tf_part(tf + 1.0, len, ctf, clen) >= s);
            prop_assert!(f.tf_part(tf, len, ctf + 1.0, clen) >= s);
            prop_assert!(f.tf_part(tf, len + 1.0, ctf, clen) <= s * (1.0 + 1e-12));
            prop_assert!(f.tf_part(tf, len, ctf, clen + 1.0) <= s * (1.0 + 1e-12));
        }
    }
}
