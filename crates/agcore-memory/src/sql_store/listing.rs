//! The items a SQL store writes for a batch and returns for a list, a
//! count or a search, whatever its SQL.

use std::collections::BTreeMap;

use crate::{MemoryFilter, MemoryItem, ScoredItem, SearchOptions};

/// The items of a batch write as a store writes them: one per id, the last
/// of several with one id (as if saved in order), in id order (so writers
/// lock rows in one order).
pub fn last_by_id(items: Vec<MemoryItem>) -> Vec<MemoryItem> {
    let mut by_id: BTreeMap<String, MemoryItem> = BTreeMap::new();
    for item in items {
        by_id.insert(item.id.clone(), item);
    }
    by_id.into_values().collect()
}

/// A list or a count of the items passing `filter`, read in list order by
/// SQL that selects exactly those items (`exact`) or more (conditions the
/// SQL cannot decide, such as metadata compared as JSON), which
/// [`Listing::finish`] then checks with [`MemoryFilter::matches`].
#[derive(Debug, Clone, Copy)]
pub struct Listing<'f> {
    /// The filter listed or counted.
    pub filter: &'f MemoryFilter,
    /// Whether the SQL selects exactly the filter's items.
    pub exact: bool,
    /// Whether only the count is wanted.
    pub count_only: bool,
}

impl Listing<'_> {
    /// Whether the SQL can count the items itself (`count(*)`): a count
    /// with exact SQL.
    pub fn counts_in_sql(&self) -> bool {
        self.count_only && self.exact
    }

    /// The `LIMIT` of the SQL: the filter's limit, for a list with exact SQL
    /// (otherwise it applies after the check, in [`Listing::finish`]).
    pub fn sql_limit(&self) -> Option<usize> {
        self.filter.limit.filter(|_| self.exact && !self.count_only)
    }

    /// The items the SQL read (in list order) that pass the filter, at most
    /// its limit for a list, and how many.
    pub fn finish(&self, mut items: Vec<MemoryItem>) -> (Vec<MemoryItem>, usize) {
        if !self.exact {
            items.retain(|item| self.filter.matches(item));
        }
        if !self.count_only
            && let Some(limit) = self.filter.limit
        {
            items.truncate(limit);
        }
        let n = items.len();
        (items, n)
    }
}

/// The hits of a search from `rows` read best first: each row's item
/// (`item`) when it passes the options' filter (checked here unless the
/// SQL was `exact`), with its score (`score`), until `options.limit` hits
/// are found; the rows after that are not read.
///
/// # Errors
/// The first error of `item` or `score`.
pub fn best_hits<R, E>(
    rows: impl IntoIterator<Item = R>,
    (options, exact): (&SearchOptions, bool),
    mut item: impl FnMut(&mut R) -> Result<MemoryItem, E>,
    mut score: impl FnMut(&mut R) -> Result<f64, E>,
) -> Result<Vec<ScoredItem>, E> {
    let rows = rows.into_iter();
    let mut hits = Vec::with_capacity(rows.size_hint().0.min(options.limit));
    for mut row in rows {
        let found = item(&mut row)?;
        if !exact && !options.filter.matches(&found) {
            continue;
        }
        hits.push(ScoredItem {
            score: score(&mut row)?,
            item: found,
        });
        if hits.len() == options.limit {
            break;
        }
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(id: &str, content: &str) -> MemoryItem {
        MemoryItem::new(id, content)
    }

    #[test]
    fn the_last_item_of_an_id_is_written_in_id_order() {
        let items = vec![item("b", "1"), item("a", "2"), item("b", "3")];
        let kept: Vec<(String, String)> = last_by_id(items)
            .into_iter()
            .map(|i| (i.id, i.content))
            .collect();
        assert_eq!(kept, [("a".into(), "2".into()), ("b".into(), "3".into())]);
    }

    #[test]
    fn hits_are_read_until_the_limit_passes_the_filter() {
        let options = SearchOptions {
            filter: MemoryFilter::with_prefix("a"),
            limit: 2,
            ..SearchOptions::default()
        };
        let rows = vec![
            Ok(("b", 3.0)),
            Ok(("a1", 2.0)),
            Ok(("a2", 1.0)),
            Err("never read"),
        ];
        let read = |row: &mut Result<(&str, f64), &'static str>| row.map(|(id, _)| item(id, "x"));
        let score = |row: &mut Result<(&str, f64), &'static str>| row.map(|(_, s)| s);
        let hits = best_hits(rows.clone(), (&options, false), read, score).unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.item.id.as_str()).collect();
        assert_eq!((ids, hits[0].score), (vec!["a1", "a2"], 2.0));
        let exact = best_hits(rows, (&options, true), read, score).unwrap();
        assert_eq!(exact[0].item.id, "b", "exact SQL is not checked again");
    }

    #[test]
    fn inexact_sql_is_checked_and_limited_after() {
        let mut filter = MemoryFilter::with_prefix("a");
        filter.limit = Some(1);
        let read = || vec![item("b", "x"), item("a1", "x"), item("a2", "x")];
        let list = Listing {
            filter: &filter,
            exact: false,
            count_only: false,
        };
        assert_eq!(list.sql_limit(), None);
        let (items, n) = list.finish(read());
        assert_eq!((items[0].id.as_str(), n), ("a1", 1));
        let count = Listing {
            count_only: true,
            ..list
        };
        assert!(!count.counts_in_sql());
        assert_eq!(count.finish(read()).1, 2, "a count has no limit");
        let exact = Listing {
            exact: true,
            ..list
        };
        assert_eq!(exact.sql_limit(), Some(1));
        assert_eq!(exact.finish(read()).1, 1);
        assert!(
            Listing {
                exact: true,
                ..count
            }
            .counts_in_sql()
        );
    }
}
