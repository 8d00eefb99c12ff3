//! The cost model of a database's full-text search: whether a statement
//! finds its candidates through the full-text index, or by reading every
//! row in range and looking for the words in its text, and how few rows a
//! MaxScore round must leave out to be worth a statement of its own.

/// Documents the words left out of a round must match together, by
/// default, for the round to be worth a statement: InnoDB's `FULLTEXT`
/// index takes about 3 µs per matching row and a search statement 1–2 ms
/// before it matches anything (MariaDB 10.11, `docs/backends.md`), so
/// leaving out fewer rows than this saves less than another round may cost.
pub const MIN_SAVED_ROWS: u64 = 1_000;

/// Estimated costs of the two ways to find a statement's candidates.
///
/// [`Self::INNODB_FULLTEXT`] is measured on MariaDB 10.11 (InnoDB `FULLTEXT`) on the
/// 100k bench store: its full-text search costs about 3.5 µs per posting it
/// reads (per document holding a matched word); a scan costs about 0.4 µs
/// per row plus 0.15 µs per word it looks for (`user`, in 70% of the items,
/// matched in 190 ms, scanned for in 40 ms). A query whose words are in more
/// than about a fifth of the rows is thus several times cheaper as a scan,
/// and the scan matches every word for the price of a few: it is exhaustive
/// in one statement.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AccessCost {
    /// µs per posting the full-text index reads.
    pub posting_us: f64,
    /// µs per row a scan reads.
    pub row_us: f64,
    /// µs per word a scan looks for in a row.
    pub word_us: f64,
    /// A scan costs at most this share of the index's estimate before it is
    /// chosen: the estimates are rough, and the index is the usual path.
    pub scan_margin: f64,
}

impl AccessCost {
    /// InnoDB's `FULLTEXT` index against a scan of `LOCATE`s (MariaDB
    /// 10.11; see [`AccessCost`]).
    pub const INNODB_FULLTEXT: Self = Self {
        posting_us: 3.5,
        row_us: 0.4,
        word_us: 0.15,
        scan_margin: 0.8,
    };

    /// Whether a statement should scan `rows` rows for `words` words
    /// instead of matching words whose postings number `postings` in the
    /// index (the sum of their document frequencies).
    ///
    /// # Examples
    /// ```
    /// use agcore_search::pruning::AccessCost;
    /// // `user`, in 70,506 of 100,000 items: a scan.
    /// assert!(AccessCost::INNODB_FULLTEXT.scan_is_cheaper(100_000.0, 1, 70_506.0));
    /// ```
    pub fn scan_is_cheaper(&self, rows: f64, words: usize, postings: f64) -> bool {
        let scan = rows * (self.row_us + self.word_us * words as f64);
        scan < postings * self.posting_us * self.scan_margin
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_are_scanned_for_and_rare_ones_matched() {
        let cost = AccessCost::INNODB_FULLTEXT;
        // `user` in 70,506 of 100,000 items: a scan.
        assert!(cost.scan_is_cheaper(100_000.0, 1, 70_506.0));
        // A word in 100 of 100,000: the index.
        assert!(!cost.scan_is_cheaper(100_000.0, 1, 100.0));
        // Many words raise the scan's cost, not its rows.
        assert!(!cost.scan_is_cheaper(100_000.0, 64, 20_000.0));
        assert!(!cost.scan_is_cheaper(0.0, 1, 0.0));
    }
}
