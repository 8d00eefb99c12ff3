//! Neighbouring-memory context: score regularisation over the sequence of
//! memories in one group (a dialogue session).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::rank::Lists;
use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};

/// Lets a memory borrow relevance from its neighbours in the same group, so
/// a reply such as "Yes, last Saturday!" is found by the question its
/// neighbour asked.
///
/// Memories sharing the metadata value `group_key` form a sequence ordered
/// by `created_at`, then id. Each list (lexical, dense) is re-scored as
/// `s′(d) = s(d) + weight · Σ s(n)` over the `window` memories `n` on each
/// side of `d`, where `s` is the list's score (0 outside the list); memories
/// brought in by a neighbour join the list. This is score regularisation
/// over a document graph (Diaz 2005, "Regularizing ad hoc retrieval
/// scores", CIKM) with the graph of conversational adjacency — the query-time
/// counterpart of the context field of
/// [`ContextualBm25`](crate::retriever::ContextualBm25). Defaults: group
/// key `"session"`, window 1, weight 0.5 (the constants `ContextualBm25`
/// uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct ContextConfig {
    /// The metadata key whose value names a memory's group (its session).
    /// Memories without it get no context.
    pub group_key: String,
    /// Neighbours on each side, ≥ 1.
    pub window: usize,
    /// How much of a neighbour's score a memory receives, in `[0, 1]`.
    pub weight: f64,
    /// Which lists are regularised.
    pub lists: ContextLists,
}

/// Which ranked lists [`ContextConfig`] applies to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextLists {
    /// The lexical list only (the default: words of a neighbour are the
    /// evidence `ContextualBm25` showed useful).
    #[default]
    Lexical,
    /// Both the lexical and the dense list.
    Both,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            group_key: "session".to_owned(),
            window: 1,
            weight: 0.5,
            lists: ContextLists::Lexical,
        }
    }
}

impl ContextConfig {
    /// Sets the group key.
    pub fn with_group_key(mut self, key: impl Into<String>) -> Self {
        self.group_key = key.into();
        self
    }

    /// Sets the window (at least 1).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window.max(1);
        self
    }

    /// Sets the weight (clamped to `[0, 1]`).
    pub fn with_weight(mut self, weight: f64) -> Self {
        self.weight = if weight.is_finite() {
            weight.clamp(0.0, 1.0)
        } else {
            0.0
        };
        self
    }

    /// Sets which lists are regularised.
    pub fn with_lists(mut self, lists: ContextLists) -> Self {
        self.lists = lists;
        self
    }
}

/// The sequences of the groups the candidates of `lists` belong to, each
/// ordered by `created_at` then id (one `list` call per group).
pub(crate) async fn load_groups(
    store: &dyn MemoryStore,
    base: &MemoryFilter,
    lists: &Lists<MemoryItem>,
    config: &ContextConfig,
) -> Result<Vec<Vec<MemoryItem>>, MemoryError> {
    let mut seen: Vec<serde_json::Value> = Vec::new();
    for item in lists.items.values() {
        if let Some(value) = item.metadata.get(&config.group_key)
            && !value.is_array()
            && !value.is_object()
            && !seen.contains(value)
        {
            seen.push(value.clone());
        }
    }
    let mut groups = Vec::with_capacity(seen.len());
    for value in seen {
        let mut filter = base.clone().metadata_eq(config.group_key.clone(), value);
        filter.limit = None;
        let mut members = store.list(&filter).await?;
        members.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        groups.push(members);
    }
    Ok(groups)
}

/// Re-scores `list` over `groups` (see [`ContextConfig`]); adds the memories
/// brought in by a neighbour to `items`. The list comes back best first.
pub(crate) fn regularise(
    list: &mut Vec<(String, f64)>,
    items: &mut HashMap<String, MemoryItem>,
    groups: &[Vec<MemoryItem>],
    config: &ContextConfig,
) {
    if list.is_empty() || config.weight <= 0.0 {
        return;
    }
    let base: HashMap<&str, f64> = list.iter().map(|(id, s)| (id.as_str(), *s)).collect();
    let mut scores: HashMap<String, f64> =
        base.iter().map(|(id, s)| ((*id).to_owned(), *s)).collect();
    for members in groups {
        for (i, member) in members.iter().enumerate() {
            let lo = i.saturating_sub(config.window);
            let hi = (i + config.window).min(members.len().saturating_sub(1));
            let borrowed: f64 = (lo..=hi)
                .filter(|j| *j != i)
                .filter_map(|j| members.get(j))
                .filter_map(|n| base.get(n.id.as_str()))
                .sum();
            if borrowed > 0.0 {
                let own = base.get(member.id.as_str()).copied().unwrap_or(0.0);
                scores.insert(member.id.clone(), own + config.weight * borrowed);
                items
                    .entry(member.id.clone())
                    .or_insert_with(|| member.clone());
            }
        }
    }
    let mut rescored: Vec<(String, f64)> = scores.into_iter().collect();
    rescored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    *list = rescored;
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};
    use serde_json::json;

    fn turn(id: &str, second: u32) -> MemoryItem {
        MemoryItem::new(id, id)
            .with_metadata(json!({"session": 1}))
            .with_created_at(Utc.with_ymd_and_hms(2024, 1, 1, 0, 0, second).unwrap())
    }

    #[test]
    fn a_neighbour_of_a_match_joins_and_gets_half_its_score() {
        let group = vec![turn("q", 0), turn("a", 1), turn("far", 5)];
        let mut items = HashMap::new();
        items.insert("q".to_owned(), group[0].clone());
        let mut list = vec![("q".to_owned(), 4.0)];
        regularise(&mut list, &mut items, &[group], &ContextConfig::default());
        assert_eq!(list, vec![("q".to_owned(), 4.0), ("a".to_owned(), 2.0)]);
        assert!(items.contains_key("a") && !items.contains_key("far"));
    }

    #[test]
    fn two_matching_neighbours_add_up() {
        let group = vec![turn("x", 0), turn("y", 1), turn("z", 2)];
        let mut items = HashMap::new();
        let mut list = vec![
            ("x".to_owned(), 2.0),
            ("z".to_owned(), 2.0),
            ("y".to_owned(), 1.0),
        ];
        regularise(&mut list, &mut items, &[group], &ContextConfig::default());
        assert_eq!(list[0], ("y".to_owned(), 3.0));
    }
}
