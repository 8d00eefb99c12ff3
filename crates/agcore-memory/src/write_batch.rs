//! Batches of store writes as the database backends apply them: one item
//! per id, in id order.

use std::collections::BTreeMap;

use crate::MemoryItem;

/// The items of a batch saved together, as if saved in order: the last of
/// several with one id wins, and the items come in id order (one order of
/// row locks across concurrent writers).
pub fn last_per_id(items: Vec<MemoryItem>) -> Vec<MemoryItem> {
    let mut by_id: BTreeMap<String, MemoryItem> = BTreeMap::new();
    for item in items {
        by_id.insert(item.id.clone(), item);
    }
    by_id.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_item_of_an_id_wins_in_id_order() {
        let items = vec![
            MemoryItem::new("b", "first b"),
            MemoryItem::new("a", "a"),
            MemoryItem::new("b", "second b"),
        ];
        let got: Vec<(String, String)> = last_per_id(items)
            .into_iter()
            .map(|item| (item.id, item.content))
            .collect();
        assert_eq!(
            got,
            [
                ("a".to_owned(), "a".to_owned()),
                ("b".to_owned(), "second b".to_owned())
            ]
        );
    }
}
