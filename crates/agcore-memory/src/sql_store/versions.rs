//! The versions of each id in the items of one batch write: a later item
//! with an id is a later version of it, so a store inserts each id at its
//! first position (row numbers follow the batch order) and stores its last
//! version.

use std::collections::HashMap;

/// Id → (first position, last position) in the items of one batch write.
#[derive(Debug, Default)]
pub struct Versions<'a>(HashMap<&'a str, (usize, usize)>);

impl<'a> Versions<'a> {
    /// The positions of `ids`, the items' ids in order.
    pub fn of(ids: impl ExactSizeIterator<Item = &'a str>) -> Self {
        let mut versions = HashMap::with_capacity(ids.len());
        for (n, id) in ids.enumerate() {
            versions
                .entry(id)
                .and_modify(|v: &mut (usize, usize)| v.1 = n)
                .or_insert((n, n));
        }
        Self(versions)
    }

    /// The first position of `id`; `None` for an id not in the batch.
    #[inline]
    pub fn first(&self, id: &str) -> Option<usize> {
        self.0.get(id).map(|v| v.0)
    }

    /// The first position of `id` when `n` is its last (the item at `n` is
    /// the version to store); `None` otherwise.
    #[inline]
    pub fn last_version(&self, id: &str, n: usize) -> Option<usize> {
        self.0
            .get(id)
            .and_then(|&(first, last)| (last == n).then_some(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_is_first_at_its_first_item_and_stored_from_its_last() {
        let v = Versions::of(["a", "b", "a", "a"].into_iter());
        assert_eq!(
            (v.first("a"), v.first("b"), v.first("c")),
            (Some(0), Some(1), None)
        );
        assert_eq!(v.last_version("a", 3), Some(0));
        assert_eq!(v.last_version("a", 2), None);
        assert_eq!(v.last_version("b", 1), Some(1));
    }
}
