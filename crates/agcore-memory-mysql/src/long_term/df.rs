//! Document frequencies of long-term memory's full-text words, kept by the
//! writers in `agcore_lt_terms (word, df)` (see [`crate::doc_freq`]): the
//! number of entries (archived included) whose `terms` column holds `word`.
//! Words carry their scope's prefix (see [`crate::terms`]), so the table is
//! per scope without a scope column.
//!
//! Every write of an entry's `terms` shifts the frequencies of the words it
//! adds or drops in the same transaction ([`account`]).
//! [`sync`] counts them afresh from the entries when the table was built
//! for another analyzer (or never): on the first open after the upgrade,
//! and after a re-index.

use agcore_search::ANALYZER_ID;
use agcore_search::doc_freq::{distinct, word_deltas};
use mysql_async::Conn;
use mysql_async::prelude::Queryable;

use super::seen::Seen;
use crate::doc_freq::DfTable;
use crate::error::Result;

const TABLE: DfTable = DfTable::LONG_TERM;

/// The BM25 statistics an entry write changes: the scope's entry count
/// and total length, and the frequencies of the words the entry's `terms`
/// column gains or loses as it goes from `old` to `new` (`""` for an entry
/// inserted or deleted). One round trip, sent last before the commit: the
/// rows it locks (the scope's, and its common words' — every writer of the
/// scope needs them) are held for as short a time as the transaction
/// allows. Index words are `[a-z0-9]` only and numbers are numbers, so the
/// statements are sent as text with their values inline; a word read back
/// in any other shape is bound as a parameter instead.
pub(crate) async fn account(
    conn: &mut impl Queryable,
    scope_id: i64,
    (docs, len): (i64, i64),
    (old, new): (&str, &str),
) -> Result<()> {
    let deltas = word_deltas(old, new);
    let mut sql = match TABLE.add_inline(&deltas) {
        Some(sql) => sql,
        None => {
            TABLE.add(conn, &deltas).await?;
            String::new()
        }
    };
    if docs != 0 || len != 0 {
        sql.push_str(&format!(
            "UPDATE agcore_lt_scopes SET docs = docs + {docs}, total_len = total_len + {len} \
             WHERE id = {scope_id}"
        ));
    }
    if !sql.is_empty() {
        conn.query_drop(sql).await?;
    }
    Ok(())
}

/// Creates the rows (frequency 0) of the words of `column` not known to
/// exist, in one statement committed at once, before the write transaction
/// that will count them. That transaction then finds every row in place and
/// only updates them, locking no gaps, so writers bringing new words into a
/// scope at once do not deadlock inserting them (a row it finds missing all
/// the same is inserted there: counted right, only not gap-free).
pub(crate) async fn create_missing(conn: &mut Conn, known: &Seen, column: &str) -> Result<()> {
    TABLE
        .create_missing(conn, known.words(), distinct(column))
        .await
}

/// Each word's frequency, in the order of `words` (0 for a word no entry
/// holds).
pub(crate) async fn lookup(conn: &mut impl Queryable, words: &[String]) -> Result<Vec<f64>> {
    TABLE.lookup(conn, words).await
}

/// Counts every word afresh from the entries unless the table was built
/// for this library's analyzer (`agcore_lt_meta`, name `df`;
/// [`DfTable::sync`]). Runs after any re-index.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn sync(conn: &mut Conn) -> Result<()> {
    TABLE.sync(conn, ANALYZER_ID).await
}
