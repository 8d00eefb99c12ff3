//! [`ContextField`]: the neighbouring-memory context field the stores index
//! beside a memory's own text, and the BM25F term weight over both fields
//! ([`Bm25F`]).

use super::Bm25;
use crate::{MemoryFilter, MemoryItem};

/// A store's context field: each memory that belongs to a sequence (a chat
/// session) is indexed with a second, lower-weighted BM25F field holding the
/// terms of its `window` neighbours on each side, so a reply such as "Yes,
/// last Saturday!" is found by the question its neighbour asked (document
/// expansion with the surrounding conversation: Ogilvie & Callan 2003,
/// "Combining document representations for known-item search", SIGIR).
///
/// - The sequence of a memory is named by the value of its metadata key
///   `group_key` (default `"session"`, the key
///   [`ConversationMemory`](crate::ConversationMemory) writes): a string or
///   number naming one sequence store-wide. Memories without it (or with an
///   array, object or `null` there) have no context field and rank exactly
///   as plain BM25 ranks them.
/// - Inside a sequence memories are ordered by `created_at`, then id; the
///   store derives the field from the neighbours it holds and keeps it up to
///   date as turns are saved, replaced and deleted, so writers only save
///   turns through the ordinary [`MemoryStore`](crate::MemoryStore) API.
/// - Both fields are analysed alike ([`index_terms`](super::index_terms):
///   stop words dropped, Snowball stems, CJK character bigrams kept) and
///   combined with BM25F ([`Bm25F`]).
///
/// The defaults — window 1, weight 0.5 — are the constants
/// [`ContextualBm25`](super::ContextualBm25) was given before it was first
/// measured, not values fitted to an evaluation set.
///
/// The same settings describe [`hybrid::DenseContext`](crate::hybrid::DenseContext),
/// the dense counterpart (serialised as a configuration table).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ContextField {
    /// Metadata key naming a memory's sequence. Default `"session"`.
    pub group_key: String,
    /// Neighbours on each side whose text forms the field, ≥ 1. Default 1.
    pub window: usize,
    /// Weight of the field against the memory's own text (weight 1), in
    /// `(0, 1]`. Default 0.5.
    pub weight: f64,
}

impl Default for ContextField {
    fn default() -> Self {
        Self {
            group_key: "session".to_owned(),
            window: 1,
            weight: 0.5,
        }
    }
}

impl ContextField {
    /// Sets the metadata key naming a memory's sequence.
    pub fn with_group_key(mut self, key: impl Into<String>) -> Self {
        self.group_key = key.into();
        self
    }

    /// Sets the window (at least 1).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window.max(1);
        self
    }

    /// Sets the weight (clamped to `(0, 1]`; NaN keeps the current value).
    pub fn with_weight(mut self, weight: f64) -> Self {
        if !weight.is_nan() {
            self.weight = weight.clamp(f64::MIN_POSITIVE, 1.0);
        }
        self
    }

    /// The sequence `item` belongs to: its `group_key` metadata value as JSON
    /// text (so `1` and `"1"` differ), when a string, number or boolean.
    pub fn group_of(&self, item: &MemoryItem) -> Option<String> {
        group_value(item, &self.group_key)
    }

    /// The sequence `filter` names by an equality on `group_key` with a
    /// string, number or boolean (as [`Self::group_of`] names it), if any:
    /// a store can answer such a filter from its index of sequences instead
    /// of scanning every memory. The filter's other conditions still apply.
    pub fn group_in(&self, filter: &MemoryFilter) -> Option<String> {
        filter
            .metadata
            .iter()
            .find_map(|(key, value)| (*key == self.group_key).then(|| scalar_text(value))?)
    }
}

/// The text a store records for the settings its context fields were
/// derived with — the sequence key and window as JSON
/// (`{"group_key":"session","window":1}`), `null` without a field — so that
/// opening it with other settings derives every field again. The weight is
/// left out: it only matters at search time.
pub fn derivation_settings(context: Option<&ContextField>) -> String {
    match context {
        Some(c) => serde_json::json!({ "group_key": c.group_key, "window": c.window }).to_string(),
        None => "null".to_owned(),
    }
}

/// `value` as JSON text when a string, number or boolean.
fn scalar_text(value: &serde_json::Value) -> Option<String> {
    match value {
        v @ (serde_json::Value::String(_)
        | serde_json::Value::Number(_)
        | serde_json::Value::Bool(_)) => Some(v.to_string()),
        _ => None,
    }
}

/// `item`'s metadata value under `key` as JSON text (so `1` and `"1"`
/// differ), when a string, number or boolean: the group (sequence) it
/// belongs to.
pub(crate) fn group_value(item: &MemoryItem, key: &str) -> Option<String> {
    scalar_text(item.metadata.get(key)?)
}

/// BM25F over a memory's own text and its context field (Robertson,
/// Zaragoza & Taylor 2004, "Simple BM25 extension to multiple weighted
/// fields", CIKM; per-field length normalisation as in Zaragoza et al. 2004,
/// "Microsoft Cambridge at TREC-13: Web and HARD tracks"): per field a
/// length-normalised frequency `tf_f / (1 − b + b·len_f/avglen_f)`, the
/// context one weighted, summed into `tf~`, then saturated once:
/// `tf~·(k1 + 1) / (k1 + tf~)`.
///
/// A term absent from the context field gets exactly [`Bm25::tf_part`] of its
/// own frequency (same operations, same floating-point result), so memories
/// without context rank as plain BM25 ranks them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bm25F {
    /// k1 and b, shared by both fields.
    pub bm25: Bm25,
    /// Mean length of the own-text field over all documents.
    pub avg_len: f64,
    /// Mean length of the context field over the documents in a sequence.
    pub avg_context_len: f64,
    /// Weight of the context field.
    pub weight: f64,
}

impl Bm25F {
    /// The term's saturated weight (idf excluded) for `tf` occurrences in
    /// an own text of `len` terms and `context_tf` in a context field of
    /// `context_len` terms. Finite and ≥ 0 for finite non-negative input;
    /// grows with the frequencies and shrinks with the lengths.
    pub fn tf_part(&self, tf: f64, len: f64, context_tf: f64, context_len: f64) -> f64 {
        if context_tf <= 0.0 || self.weight <= 0.0 {
            return self.bm25.tf_part(tf, len, self.avg_len);
        }
        let own = tf / norm(self.bm25.b, len, self.avg_len);
        let context =
            self.weight * context_tf / norm(self.bm25.b, context_len, self.avg_context_len);
        let combined = own + context;
        let k1 = self.bm25.k1;
        if combined > 0.0 && combined.is_finite() {
            combined * (k1 + 1.0) / (k1 + combined)
        } else {
            0.0
        }
    }
}

/// BM25's length normalisation `1 − b + b·len/avg` (1 when `avg` is 0 or
/// the result is not positive).
fn norm(b: f64, len: f64, avg: f64) -> f64 {
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
    use proptest::prelude::*;
    use serde_json::json;

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

    #[test]
    fn derivation_settings_name_the_key_and_window_only() {
        assert_eq!(derivation_settings(None), "null");
        let field = ContextField::default();
        assert_eq!(
            derivation_settings(Some(&field)),
            r#"{"group_key":"session","window":1}"#
        );
        assert_eq!(
            derivation_settings(Some(&field.clone().with_weight(0.2))),
            derivation_settings(Some(&field))
        );
        assert_ne!(
            derivation_settings(Some(&field.clone().with_window(2))),
            derivation_settings(Some(&field))
        );
    }

    #[test]
    fn groups_are_scalar_metadata_values() {
        let c = ContextField::default();
        let item = |m| MemoryItem::new("a", "x").with_metadata(m);
        assert_eq!(
            c.group_of(&item(json!({"session": "s1"}))).as_deref(),
            Some("\"s1\"")
        );
        assert_eq!(
            c.group_of(&item(json!({"session": 1}))).as_deref(),
            Some("1")
        );
        assert_eq!(c.group_of(&item(json!({"session": [1]}))), None);
        assert_eq!(c.group_of(&item(json!({"other": 1}))), None);
        assert_eq!(c.group_of(&item(serde_json::Value::Null)), None);
        assert_eq!(ContextField::default().with_window(0).window, 1);
        assert_eq!(ContextField::default().with_weight(3.0).weight, 1.0);
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
