//! Which query words a search must match: the MaxScore plan of
//! [`agcore_search::pruning`] (Turtle & Flood 1995), for the store's and
//! long-term memory's searches, with MySQL's cost of a round.
//!
//! The essential words are matched in the `FULLTEXT` index, their
//! candidates scored exactly with every word (see
//! [`MaxScorePlan`](agcore_search::pruning::MaxScorePlan)). A round that
//! leaves out few rows is not worth its statement: when the words left out
//! match fewer documents together than [`MIN_SAVED_ROWS`] (by default),
//! every word is matched at once (one statement, exhaustive).
//!
//! In the bench corpus the stemmed `user` is in 70% of long-term entries:
//! its bound is `2.2e-6` (FTS5's idf is floored at `1e-6` for words in more
//! than half the entries) against 15 for a word in 100 of 100,000, so a
//! query holding it matches only its other words, unless they cannot fill
//! the top `k`.

pub(crate) use agcore_search::pruning::MaxScorePlan as Pruning;

/// Documents the words left out of a round must match together, by
/// default, for the round to be worth a statement: InnoDB's `FULLTEXT`
/// index takes about 3 µs per matching row and a search statement 1–2 ms
/// before it matches anything (MariaDB 10.11, `docs/backends.md`), so
/// leaving out fewer rows than this saves less than another round may cost.
pub(crate) const MIN_SAVED_ROWS: u64 = 1_000;
