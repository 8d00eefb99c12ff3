//! [`ContextField`]: the neighbouring-memory context field the stores index
//! beside a memory's own text. The BM25F term weight over both fields,
//! [`Bm25F`](agcore_search::Bm25F), lives in `agcore-search`.

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
///   combined with BM25F ([`Bm25F`](agcore_search::Bm25F)).
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

    /// The window a store derives `context`'s fields with: its `window`, at
    /// most `bound` (0 without a field: no neighbours). A window longer than
    /// any sequence reads the same neighbours, so a store bounds it to keep
    /// its rank or `LIMIT` arithmetic in range: [`MAX_STORED_WINDOW`] on
    /// most backends, `usize::MAX` (no bound) on SQLite.
    pub fn stored_window(context: Option<&Self>, bound: usize) -> usize {
        context.map_or(0, |c| c.window.min(bound))
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

/// The bound of [`ContextField::stored_window`] on PostgreSQL and Redis:
/// longer than any sequence, and small enough that twice it plus one still
/// fits the 32-bit ranks of their SQL and the counts of their scripts.
pub const MAX_STORED_WINDOW: usize = 1 << 30;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_stored_window_is_bounded() {
        let field = ContextField::default().with_window(usize::MAX);
        assert_eq!(ContextField::stored_window(None, MAX_STORED_WINDOW), 0);
        let bounded = ContextField::stored_window(Some(&field), MAX_STORED_WINDOW);
        assert_eq!(bounded, MAX_STORED_WINDOW);
        assert_eq!(
            ContextField::stored_window(Some(&field), usize::MAX),
            usize::MAX
        );
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
}
