//! Keys of stored vectors, scoring and the ranking order of hits.

use std::cmp::Ordering;

/// The key of one stored vector: `(namespace, id)`, ordered by namespace
/// then id (the tie-break order of equal scores, [`rank_order`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VectorKey {
    /// Namespace of the record.
    pub namespace: String,
    /// Id of the record.
    pub id: String,
}

impl VectorKey {
    /// The key of `id` in `namespace`.
    pub fn new(namespace: impl Into<String>, id: impl Into<String>) -> Self {
        Self {
            namespace: namespace.into(),
            id: id.into(),
        }
    }
}

/// Dot product of two equally long slices (eight running sums, so the
/// compiler vectorises it). Extra components of the longer slice are ignored.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut sums = [0.0f32; 8];
    let chunks_a = a.chunks_exact(8);
    let chunks_b = b.chunks_exact(8);
    let rest: f32 = chunks_a
        .remainder()
        .iter()
        .zip(chunks_b.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (ca, cb) in chunks_a.zip(chunks_b) {
        for ((s, x), y) in sums.iter_mut().zip(ca).zip(cb) {
            *s += x * y;
        }
    }
    sums.iter().sum::<f32>() + rest
}

/// Scales `vector` to unit length in place and returns its former length
/// (the L2 norm). A vector whose norm is 0 or not finite is left as it is.
/// The indexes of this module expect vectors normalised with it, so that
/// [`dot`] is the cosine. (Same operations as
/// `agcore_llm::embedding::l2_normalize`, which normalises embeddings.)
///
/// # Examples
/// ```
/// use agcore_search::vector::l2_normalize;
/// let mut v = [3.0, 4.0];
/// assert_eq!(l2_normalize(&mut v), 5.0);
/// assert_eq!(v, [0.6, 0.8]);
/// ```
pub fn l2_normalize(vector: &mut [f32]) -> f32 {
    let norm = vector.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 && norm.is_finite() {
        for x in vector.iter_mut() {
            *x /= norm;
        }
    }
    norm
}

/// Ranking order of hits: higher score first, then namespace and id
/// ascending. `Ordering::Less` means `a` ranks before `b`.
pub fn rank_order(a_score: f32, a: &VectorKey, b_score: f32, b: &VectorKey) -> Ordering {
    b_score
        .partial_cmp(&a_score)
        .unwrap_or(Ordering::Equal)
        .then_with(|| a.cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_the_naive_sum() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.1).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-3);
    }

    #[test]
    fn ties_rank_by_namespace_then_id() {
        let a = VectorKey::new("a", "2");
        let b = VectorKey::new("b", "1");
        assert_eq!(rank_order(0.5, &a, 0.5, &b), Ordering::Less);
        assert_eq!(rank_order(0.4, &a, 0.5, &b), Ordering::Greater);
    }
}
