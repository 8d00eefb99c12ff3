//! [`HashingEmbedder`]: feature hashing of words and CJK character bigrams.

use async_trait::async_trait;

use super::{EmbeddingBatch, EmbeddingModel, InputKind, l2_normalize};
use crate::LlmError;

/// A deterministic, dependency-free embedder: each lowercase word (and each
/// CJK character bigram) is hashed (FNV-1a, 64-bit) to one of `dimensions`
/// buckets with a hash-derived sign, counts are summed and the vector is L2
/// normalised — the "hashing trick" of Weinberger et al. (2009), "Feature
/// Hashing for Large Scale Multitask Learning", ICML.
///
/// It captures word overlap only, not meaning: use it in tests, examples
/// and offline demos where a real model is not available. Queries and
/// documents are embedded alike. Texts without any word give the zero vector.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use agcore_llm::embedding::{EmbeddingModel, HashingEmbedder, InputKind};
///
/// let model = HashingEmbedder::new(64);
/// let batch = model.embed(&["red apples".into(), "Red apples!".into()], InputKind::Document).await.unwrap();
/// assert_eq!(batch.vectors.len(), 2);
/// assert_eq!(batch.vectors[0], batch.vectors[1]);
/// # });
/// ```
#[derive(Debug, Clone)]
pub struct HashingEmbedder {
    dimensions: usize,
    model_id: String,
}

impl HashingEmbedder {
    /// An embedder with `dimensions` buckets (at least 1).
    pub fn new(dimensions: usize) -> Self {
        let dimensions = dimensions.max(1);
        Self {
            dimensions,
            model_id: format!("hashing-fnv1a-{dimensions}"),
        }
    }

    /// The vector of one text (unit length, or zero when the text has no word).
    pub fn embed_one(&self, text: &str) -> Vec<f32> {
        let mut vector = vec![0.0f32; self.dimensions];
        let lower = text.to_lowercase();
        let mut add = |token: &str| {
            let h = fnv1a(token.as_bytes());
            let bucket = (h % self.dimensions as u64) as usize;
            let sign = if (h >> 63) == 0 { 1.0 } else { -1.0 };
            if let Some(slot) = vector.get_mut(bucket) {
                *slot += sign;
            }
        };
        for word in lower.split(|c: char| !c.is_alphanumeric()) {
            if word.is_empty() {
                continue;
            }
            let chars: Vec<char> = word.chars().collect();
            if chars.iter().any(|c| is_cjk(*c)) {
                if chars.len() == 1 {
                    add(word);
                }
                for pair in chars.windows(2) {
                    let bigram: String = pair.iter().collect();
                    add(&bigram);
                }
            } else {
                add(word);
            }
        }
        l2_normalize(&mut vector);
        vector
    }
}

#[async_trait]
impl EmbeddingModel for HashingEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn normalized(&self) -> bool {
        true
    }

    async fn embed(&self, texts: &[String], _kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        Ok(EmbeddingBatch {
            vectors: texts.iter().map(|t| self.embed_one(t)).collect(),
            prompt_tokens: 0,
        })
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(*b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_words_same_vector_and_unit_norm() {
        let m = HashingEmbedder::new(128);
        let a = m.embed_one("The cat sat");
        let b = m.embed_one("the CAT sat.");
        assert_eq!(a, b);
        let norm: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-5);
    }

    #[test]
    fn empty_text_is_zero_and_chinese_is_hashed() {
        let m = HashingEmbedder::new(32);
        assert!(m.embed_one("  ,. ").iter().all(|x| *x == 0.0));
        assert!(m.embed_one("记忆系统").iter().any(|x| *x != 0.0));
        assert_ne!(m.embed_one("记忆"), m.embed_one("系统"));
    }
}
