//! Document frequencies kept by a database's writers, one `(word, df)` row
//! per index word, instead of counted per search: the parts that do not
//! depend on the storage.
//!
//! A stored document's index words are a space-separated column (`" a b a
//! "`); [`distinct`] reads its words. A write shifts each word's frequency
//! by the documents that gained or lost it: [`word_deltas`] for one
//! document's column going from old to new text, [`WordChanges`] for the
//! documents a transaction rewrote over two BM25F fields (a document counts
//! once for a word in either field). Counting afresh adds each document's
//! distinct words ([`DocCounts`]), and [`KnownWords`] remembers, boundedly,
//! the words whose rows a process knows to exist.

use std::collections::{BTreeSet, HashMap};

mod changes;
mod known;

pub use changes::{Field, WordChanges};
pub use known::KnownWords;

/// The distinct words of a `terms` column (words separated by ASCII
/// whitespace), in word order.
#[inline]
pub fn distinct(column: &str) -> BTreeSet<&str> {
    column.split_ascii_whitespace().collect()
}

/// Whether `word` is a plain index word (`[a-z0-9]+`, as the SQL drivers
/// write their full-text words): safe inside a quoted SQL literal.
pub fn is_plain(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// The frequencies of `words`, in their order, from the `(word, df)` rows
/// a table returned in any order: 0 for a word without a row, and for a
/// negative count.
pub fn in_order(words: &[String], rows: impl IntoIterator<Item = (String, i64)>) -> Vec<f64> {
    let found: HashMap<String, i64> = rows.into_iter().collect();
    words
        .iter()
        .map(|w| found.get(w).map_or(0.0, |&df| df.max(0) as f64))
        .collect()
}

/// How each word's frequency changes when one document's `terms` column
/// goes from `old` to `new` (`""` for a document inserted or deleted): +1
/// for a word it gains, −1 for one it loses, in word order, without zeros.
pub fn word_deltas<'a>(old: &'a str, new: &'a str) -> Vec<(&'a str, i64)> {
    let (old, new) = (distinct(old), distinct(new));
    let mut deltas: Vec<(&str, i64)> = new
        .difference(&old)
        .map(|word| (*word, 1))
        .chain(old.difference(&new).map(|word| (*word, -1)))
        .collect();
    deltas.sort_unstable();
    deltas
}

/// Document frequencies counted afresh, document by document, to be written
/// out in any number of flushes ([`Self::sorted`], then [`Self::clear`]).
#[derive(Debug, Default)]
pub struct DocCounts(HashMap<String, i64>);

impl DocCounts {
    /// Counts one document whose fields hold the `terms` columns `fields`:
    /// +1 for each word in any of them, once however many hold it.
    pub fn add(&mut self, fields: &[&str]) {
        let mut words = BTreeSet::new();
        for field in fields {
            words.extend(distinct(field));
        }
        for word in words {
            *self.0.entry(word.to_owned()).or_insert(0) += 1;
        }
    }

    /// How many words are counted.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no word is counted.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The counts, in word order.
    #[must_use]
    pub fn sorted(&self) -> Vec<(&str, i64)> {
        let mut sorted: Vec<(&str, i64)> = self.0.iter().map(|(w, &n)| (w.as_str(), n)).collect();
        sorted.sort_unstable();
        sorted
    }

    /// Forgets every count (after a flush).
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_words_and_frequencies_in_query_order() {
        assert!(is_plain("s12x6162"));
        for word in ["", "s1x'", "S1", "s1 x", "s1x61;"] {
            assert!(!is_plain(word), "{word}");
        }
        let words = ["a".to_owned(), "b".to_owned(), "c".to_owned()];
        let rows = [
            ("c".to_owned(), 3),
            ("a".to_owned(), -1),
            ("z".to_owned(), 9),
        ];
        assert_eq!(in_order(&words, rows), [0.0, 0.0, 3.0]);
    }

    #[test]
    fn distinct_words_are_sorted_and_unique() {
        let words: Vec<&str> = distinct(" s1x62  s1x61  s1x62 ").into_iter().collect();
        assert_eq!(words, ["s1x61", "s1x62"]);
        assert!(distinct("").is_empty());
    }

    #[test]
    fn a_rewrite_shifts_the_words_gained_and_lost() {
        assert_eq!(word_deltas(" b a c ", " c d a d "), [("b", -1), ("d", 1)]);
        assert_eq!(word_deltas("", " a a "), [("a", 1)]);
        assert_eq!(word_deltas(" a ", ""), [("a", -1)]);
        assert!(word_deltas(" a b ", " b a ").is_empty());
    }

    #[test]
    fn a_document_counts_once_per_word() {
        let mut counts = DocCounts::default();
        assert!(counts.is_empty());
        counts.add(&[" a b a ", " b c "]);
        counts.add(&[" c "]);
        assert_eq!(counts.len(), 3);
        assert_eq!(counts.sorted(), [("a", 1), ("b", 1), ("c", 2)]);
        counts.clear();
        assert!(counts.sorted().is_empty());
    }
}
