//! Bulk embedding: many texts embedded now, in the caller's task, each
//! distinct text once, in batches of the model's size sorted by length —
//! for imports, re-embedding and evaluation, where the background queue's
//! one-write-at-a-time path would embed windows again and again.

use std::collections::HashMap;

use agcore_llm::embedding::InputKind;

use super::DenseIndex;
use super::queue::{content_hash, model_error};
use crate::MemoryError;
use crate::vector::VectorRecord;

/// Ids per stored-hash lookup (well under the bind-parameter limits of
/// the SQL stores).
const LOOKUP_CHUNK: usize = 1_000;

/// Vectors per write to the vector store.
const WRITE_CHUNK: usize = 1_024;

/// A text to embed as the vector of `(namespace, id)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedText {
    /// Vector namespace.
    pub namespace: String,
    /// Id of the vector in the namespace.
    pub id: String,
    /// The text to embed.
    pub text: String,
}

impl KeyedText {
    /// The text `text` for `(namespace, id)`.
    pub fn new(
        namespace: impl Into<String>,
        id: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Self {
            namespace: namespace.into(),
            id: id.into(),
            text: text.into(),
        }
    }
}

/// How far a bulk embedding has got, in texts (vector keys): `done` of
/// `total`, up-to-date ones counted as done from the start.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EmbedProgress {
    /// Texts handled (embedded and written, or already up to date).
    pub done: usize,
    /// Texts in the call (distinct keys).
    pub total: usize,
}

/// A progress callback of a bulk embedding, called after each batch (from
/// the caller's task). `Send + Sync` so a progress bar can be shared.
pub type ProgressFn<'a> = &'a (dyn Fn(EmbedProgress) + Send + Sync);

/// What a bulk embedding did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BulkReport {
    /// Distinct keys given (a later text for the same key replaces an earlier one).
    pub texts: usize,
    /// Keys whose stored vector was already made from their text (no model call).
    pub up_to_date: usize,
    /// Keys given a new vector.
    pub embedded: usize,
    /// Distinct texts sent to the model (keys holding the same text share one).
    pub model_texts: usize,
}

impl BulkReport {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &Self) {
        self.texts += other.texts;
        self.up_to_date += other.up_to_date;
        self.embedded += other.embedded;
        self.model_texts += other.model_texts;
    }
}

impl DenseIndex {
    /// Embeds `texts` now and writes their vectors, returning when every
    /// one is written: keys whose stored vector was made from the same text
    /// are skipped, each distinct text is embedded once (keys sharing it
    /// share the vector), texts go to the model sorted by length in calls
    /// of [`EmbeddingModel::max_batch`](agcore_llm::embedding::EmbeddingModel::max_batch)
    /// texts (little padding; a local model's sessions all busy), and
    /// `progress` hears after each call. The background queue is not used:
    /// a text queued earlier for one of these keys may still be written by
    /// it afterwards (its hash then marks it stale), so call this for
    /// memories no single save is changing (imports, re-embedding,
    /// evaluation).
    ///
    /// # Errors
    /// [`MemoryError::Embedding`] when the model or its server fails (no
    /// retry: vectors written before stay); [`MemoryError::InvalidInput`]
    /// when the model refuses a text or returns a wrong number of vectors;
    /// vector store errors.
    pub async fn embed_all(
        &self,
        texts: Vec<KeyedText>,
        progress: Option<ProgressFn<'_>>,
    ) -> Result<BulkReport, MemoryError> {
        let texts = latest_per_key(texts);
        let total = texts.len();
        let model = self.embedder().model_id().to_owned();
        let stale = self.stale(texts, &model).await?;
        let mut report = BulkReport {
            texts: total,
            up_to_date: total - stale.len(),
            ..BulkReport::default()
        };
        let tell = |done: usize| {
            if let Some(progress) = progress {
                progress(EmbedProgress { done, total });
            }
        };
        tell(report.up_to_date);
        // Distinct texts, shortest first, each with the keys it is for.
        let mut by_text: HashMap<String, Vec<(String, String)>> = HashMap::new();
        for t in stale {
            by_text.entry(t.text).or_default().push((t.namespace, t.id));
        }
        let mut distinct: Vec<(String, Vec<(String, String)>)> = by_text.into_iter().collect();
        distinct.sort_by(|a, b| a.0.len().cmp(&b.0.len()).then_with(|| a.0.cmp(&b.0)));
        report.model_texts = distinct.len();
        let batch = self.embedder().max_batch().max(1);
        let mut records: Vec<VectorRecord> = Vec::new();
        for chunk in distinct.chunks(batch) {
            let inputs: Vec<String> = chunk.iter().map(|(text, _)| text.clone()).collect();
            let embedded = self
                .embedder()
                .embed(&inputs, InputKind::Document)
                .await
                .map_err(model_error)?;
            if embedded.vectors.len() != inputs.len() {
                return Err(MemoryError::InvalidInput(format!(
                    "the embedding model returned {} vectors for {} texts",
                    embedded.vectors.len(),
                    inputs.len()
                )));
            }
            for ((text, keys), vector) in chunk.iter().zip(embedded.vectors) {
                let hash = content_hash(&model, text);
                for (namespace, id) in keys {
                    records.push(VectorRecord::new(
                        namespace.clone(),
                        id.clone(),
                        vector.clone(),
                        hash.clone(),
                    ));
                }
                report.embedded += keys.len();
            }
            if records.len() >= WRITE_CHUNK {
                self.vectors().upsert(std::mem::take(&mut records)).await?;
            }
            tell(report.up_to_date + report.embedded);
        }
        if !records.is_empty() {
            self.vectors().upsert(records).await?;
        }
        Ok(report)
    }

    /// The texts whose stored vector is missing or was made from another
    /// text (or model).
    async fn stale(
        &self,
        texts: Vec<KeyedText>,
        model: &str,
    ) -> Result<Vec<KeyedText>, MemoryError> {
        let mut by_namespace: HashMap<String, Vec<KeyedText>> = HashMap::new();
        for t in texts {
            by_namespace.entry(t.namespace.clone()).or_default().push(t);
        }
        let mut out = Vec::new();
        for (namespace, group) in by_namespace {
            for chunk in group.chunks(LOOKUP_CHUNK) {
                let ids: Vec<String> = chunk.iter().map(|t| t.id.clone()).collect();
                let hashes = self.vectors().content_hashes(&namespace, &ids).await?;
                for (t, stored) in chunk.iter().zip(hashes) {
                    if stored.as_deref() != Some(content_hash(model, &t.text).as_str()) {
                        out.push(t.clone());
                    }
                }
            }
        }
        Ok(out)
    }
}

/// One text per key, the last given, in order of first appearance.
fn latest_per_key(texts: Vec<KeyedText>) -> Vec<KeyedText> {
    let mut index: HashMap<(String, String), usize> = HashMap::new();
    let mut out: Vec<KeyedText> = Vec::with_capacity(texts.len());
    for t in texts {
        let key = (t.namespace.clone(), t.id.clone());
        match index.get(&key).and_then(|&i| out.get_mut(i)) {
            Some(slot) => *slot = t,
            None => {
                index.insert(key, out.len());
                out.push(t);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_later_text_for_a_key_replaces_the_earlier() {
        let out = latest_per_key(vec![
            KeyedText::new("n", "a", "one"),
            KeyedText::new("n", "b", "two"),
            KeyedText::new("n", "a", "three"),
            KeyedText::new("m", "a", "four"),
        ]);
        assert_eq!(
            out,
            vec![
                KeyedText::new("n", "a", "three"),
                KeyedText::new("n", "b", "two"),
                KeyedText::new("m", "a", "four"),
            ]
        );
    }
}
