//! How a search statement finds its candidates: through the `FULLTEXT`
//! index (`MATCH … AGAINST`), or by reading every row in range and looking
//! for the words in its `terms` (`LOCATE`), whichever is estimated cheaper.
//!
//! InnoDB's full-text search costs about 3.5 µs per posting it reads (per
//! document holding a matched word); a scan costs about 0.4 µs per row plus
//! 0.15 µs per word it looks for (MariaDB 10.11 on the 100k bench store:
//! `user`, in 70% of the items, matched in 190 ms, scanned for in 40 ms).
//! A query whose words are in more than about a fifth of the rows is thus
//! several times cheaper as a scan, and the scan matches every word for the
//! price of a few: it is exhaustive in one statement. Both paths select
//! exactly the same rows: every occurrence of a word is stored as ` word `
//! in `terms` (see [`crate::terms`]). Only the store's searches without a
//! context field scan: joining each item's field row and looking through
//! its longer text made scans slower than the indexes (context bench search
//! p50 1.6 → 4.5 ms), and so did reading a long-term scope's entries
//! through its index (prefetch p99 for two of the most frequent words 230 →
//! 335 ms).

use mysql_async::Value;

/// Estimated µs per posting the `FULLTEXT` index reads.
const POSTING_US: f64 = 3.5;

/// Estimated µs per row a scan reads.
const ROW_US: f64 = 0.4;

/// Estimated µs per word a scan looks for in a row.
const WORD_US: f64 = 0.15;

/// A scan costs at most this share of the index's estimate before it is
/// chosen: the estimates are rough, and the index is the usual path.
const SCAN_MARGIN: f64 = 0.8;

/// Whether a statement should scan `rows` rows for `words` words instead of
/// matching words whose postings number `postings` in the `FULLTEXT` index
/// (the sum of their document frequencies).
pub(crate) fn scan_is_cheaper(rows: f64, words: usize, postings: f64) -> bool {
    let scan = rows * (ROW_US + WORD_US * words as f64);
    scan < postings * POSTING_US * SCAN_MARGIN
}

/// `(LOCATE(?, column) > 0 OR …)` for `n` words: true for a row whose
/// `column` holds any of them; bound by [`any_word_params`].
pub(crate) fn any_word_sql(column: &str, n: usize) -> String {
    let tests = vec![format!("LOCATE(?, {column}) > 0"); n.max(1)];
    format!("({})", tests.join(" OR "))
}

/// The parameters of [`any_word_sql`]: each word's ` word ` pattern.
pub(crate) fn any_word_params(words: &[String]) -> Vec<Value> {
    words
        .iter()
        .map(|word| Value::from(crate::terms::occurrence(word)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_are_scanned_for_and_rare_ones_matched() {
        // `user` in 70,506 of 100,000 items: a scan.
        assert!(scan_is_cheaper(100_000.0, 1, 70_506.0));
        // A word in 100 of 100,000: the index.
        assert!(!scan_is_cheaper(100_000.0, 1, 100.0));
        // Many words raise the scan's cost, not its rows.
        assert!(!scan_is_cheaper(100_000.0, 64, 20_000.0));
        assert!(!scan_is_cheaper(0.0, 1, 0.0));
    }

    #[test]
    fn the_condition_has_one_parameter_per_word() {
        let sql = any_word_sql("i.terms", 3);
        assert_eq!(sql.matches('?').count(), 3);
        assert!(sql.starts_with("(LOCATE(?, i.terms) > 0 OR "));
        let params = any_word_params(&["x61".to_owned(), "x62".to_owned()]);
        assert_eq!(params, [Value::from(" x61 "), Value::from(" x62 ")]);
    }
}
