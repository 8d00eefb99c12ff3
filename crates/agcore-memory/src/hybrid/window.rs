//! Contextual embeddings: each memory of a sequence gets a second vector,
//! the embedding of its text read together with its neighbours', and dense
//! similarity adds the query's similarity to it.

use crate::MemoryItem;
use crate::retriever::ContextField;

/// The second vector of a memory in a sequence (a dialogue session): the
/// embedding of its window — the `window` memories before it, its own text
/// and the `window` memories after it, one per line — stored beside the
/// memory's own vector. A dense search scores a memory
/// `(cos(q, own) + weight · cos(q, window)) / (1 + weight)`, so a reply such
/// as "Yes, last Saturday!" is found by the meaning of the question before
/// it, read by the model together with the reply (a short turn's
/// embedding alone says little). This is the dense counterpart of the
/// stores' lexical context field
/// ([`ContextField`](crate::retriever::ContextField)): document expansion
/// with the surrounding conversation, here done by the encoder reading the
/// neighbouring text with the chunk (as in contextual chunk embeddings:
/// Günther et al. 2024, "Late Chunking: Contextual Chunk Embeddings Using
/// Long-Context Embedding Models").
///
/// - Sequences, order and group values are those of the context field:
///   memories sharing the scalar metadata value `group_key` (default
///   `"session"`), ordered by `created_at`, then id. Memories without it
///   have one vector and score `cos(q, own)`.
/// - Cost: every save of a memory in a sequence embeds its window and its
///   neighbours' windows again (about three texts of three turns each per
///   turn saved), in the background queue; the embedding cache skips
///   windows whose text did not change.
/// - Defaults: window 1, weight 0.5 — the context field's constants, not
///   values fitted to an evaluation set.
///
/// The settings are those of the lexical field, [`ContextField`]: the
/// same type under this name.
pub type DenseContext = ContextField;

impl ContextField {
    /// The sequence value of `item` (a scalar under `group_key`), as JSON.
    pub(crate) fn group_value(&self, item: &MemoryItem) -> Option<serde_json::Value> {
        item.metadata
            .get(&self.group_key)
            .filter(|v| !v.is_array() && !v.is_object() && !v.is_null())
            .cloned()
    }

    /// The floor of a list of `len` hits out of `k` asked, `lowest` its
    /// lowest similarity (see [`DenseContext::combine`]).
    pub(crate) fn floor(len: usize, k: usize, lowest: Option<f64>) -> f64 {
        if len >= k { lowest.unwrap_or(0.0) } else { 0.0 }
    }

    /// The window texts of the members at `targets` (indices into
    /// `members`, which are one sequence in order): `(id, text)`.
    pub(crate) fn window_texts(
        &self,
        members: &[MemoryItem],
        targets: impl IntoIterator<Item = usize>,
    ) -> Vec<(String, String)> {
        let window = self.window.max(1);
        targets
            .into_iter()
            .filter_map(|i| {
                let item = members.get(i)?;
                let lo = i.saturating_sub(window);
                let hi = i
                    .saturating_add(window)
                    .min(members.len().saturating_sub(1));
                let text = members
                    .get(lo..=hi)?
                    .iter()
                    .map(|m| m.content.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                Some((item.id.clone(), text))
            })
            .collect()
    }

    /// The members whose window holds one of `ids`: each of them and its
    /// `window` neighbours on each side (indices, ascending, each once).
    pub(crate) fn affected(&self, members: &[MemoryItem], ids: &[String]) -> Vec<usize> {
        let window = self.window.max(1);
        let mut out: Vec<usize> = members
            .iter()
            .enumerate()
            .filter(|(_, m)| ids.contains(&m.id))
            .flat_map(|(i, _)| {
                let lo = i.saturating_sub(window);
                let hi = i
                    .saturating_add(window)
                    .min(members.len().saturating_sub(1));
                lo..=hi
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The dense list: each memory's own similarity plus `weight` times its
    /// window similarity, over `1 + weight`, best first (ties by id); a
    /// memory outside any sequence (`in_sequence` false) keeps its own
    /// similarity. A memory missing from one list gets `floors` (own,
    /// window) there: the list's lowest similarity when the list was cut at
    /// its length (the memory ranked below every listed one), else 0.
    /// The formula is [`agcore_search::fusion::combine_window`].
    pub(crate) fn combine(
        &self,
        own: &[(String, f64)],
        window: &[(String, f64)],
        floors: (f64, f64),
        in_sequence: impl Fn(&str) -> bool,
    ) -> Vec<(String, f64)> {
        agcore_search::fusion::combine_window(own, window, self.weight, floors, in_sequence)
    }
}

/// The vector namespace holding the window vectors of namespace `namespace`.
pub(crate) fn window_namespace(namespace: &str) -> String {
    format!("{namespace}#window")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn members(n: usize) -> Vec<MemoryItem> {
        (0..n)
            .map(|i| MemoryItem::new(format!("m{i}"), format!("turn {i}")))
            .collect()
    }

    fn list(pairs: &[(&str, f64)]) -> Vec<(String, f64)> {
        pairs.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect()
    }

    #[test]
    fn windows_read_the_neighbours_in_order() {
        let c = DenseContext::default();
        let m = members(4);
        assert_eq!(
            c.window_texts(&m, [0, 2, 3, 9]),
            vec![
                ("m0".to_owned(), "turn 0\nturn 1".to_owned()),
                ("m2".to_owned(), "turn 1\nturn 2\nturn 3".to_owned()),
                ("m3".to_owned(), "turn 2\nturn 3".to_owned()),
            ]
        );
        let wide = c.clone().with_window(2);
        assert_eq!(
            wide.window_texts(&m, [1]),
            vec![("m1".to_owned(), "turn 0\nturn 1\nturn 2\nturn 3".to_owned())]
        );
    }

    #[test]
    fn a_save_touches_the_windows_around_it() {
        let c = DenseContext::default();
        let m = members(6);
        assert_eq!(c.affected(&m, &["m2".to_owned()]), vec![1, 2, 3]);
        assert_eq!(
            c.affected(&m, &["m0".to_owned(), "m5".to_owned()]),
            vec![0, 1, 4, 5]
        );
        assert!(c.affected(&m, &["other".to_owned()]).is_empty());
    }

    #[test]
    fn combine_uses_the_weight() {
        let c = DenseContext::default();
        let out = c.combine(&list(&[("a", 0.3)]), &[], (0.0, 0.0), |_| true);
        assert!((out[0].1 - 0.2).abs() < 1e-12);
    }

    #[test]
    fn groups_are_scalar_values() {
        let c = DenseContext::default();
        let item = |m| MemoryItem::new("a", "x").with_metadata(m);
        assert_eq!(
            c.group_value(&item(json!({"session": "s"}))),
            Some(json!("s"))
        );
        assert_eq!(c.group_value(&item(json!({"session": 3}))), Some(json!(3)));
        assert_eq!(c.group_value(&item(json!({"session": null}))), None);
        assert_eq!(c.group_value(&item(json!({"session": [1]}))), None);
        assert_eq!(c.with_weight(7.0).weight, 1.0);
    }
}
