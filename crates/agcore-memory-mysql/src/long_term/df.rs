//! Document frequencies of long-term memory's full-text words, kept by the
//! writers in `agcore_lt_terms (word, df)`: the number of entries (archived
//! included) whose `terms` column holds `word`. Words carry their scope's
//! prefix (see [`crate::terms`]), so the table is per scope without a scope
//! column.
//!
//! A search reads them instead of counting: InnoDB's `FULLTEXT` index takes
//! about 3 µs per matching row, 0.2 s for a word in 70,000 entries, so
//! [`super::search`] matches only the words that can change the top results
//! and takes every word's frequency from here.
//!
//! Every write of an entry's `terms` shifts the frequencies of the words it
//! adds or drops in the same transaction ([`account`]), in one statement
//! whose rows are in word order, so concurrent writers lock shared words in
//! the same order.
//! Rows that fall to 0 stay (a later entry may use the word again).
//! [`sync`] counts them afresh from the entries when the table was built
//! for another analyzer (or never): on the first open after the upgrade,
//! and after a re-index.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agcore_memory::retriever::ANALYZER_ID;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Params, Value};

use super::seen::Seen;
use crate::error::Result;

/// Most words in one statement (two parameters each; MySQL allows 65,535).
const CHUNK: usize = 4_096;

/// Entries read per batch when counting afresh.
const SCAN_BATCH: i64 = 1_000;

/// Words counted in memory before a count is written out.
const FLUSH_WORDS: usize = 100_000;

/// The distinct words of a `terms` column, in word order.
pub(crate) fn distinct(column: &str) -> BTreeSet<&str> {
    column.split_ascii_whitespace().collect()
}

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
    let (old, new) = (distinct(old), distinct(new));
    let mut deltas: BTreeMap<&str, i64> = BTreeMap::new();
    for word in new.difference(&old) {
        deltas.insert(word, 1);
    }
    for word in old.difference(&new) {
        deltas.insert(word, -1);
    }
    let deltas: Vec<(&str, i64)> = deltas.into_iter().collect();
    let mut sql = String::new();
    if deltas.iter().all(|(w, _)| plain(w)) {
        for chunk in deltas.chunks(CHUNK) {
            let rows: Vec<String> = chunk.iter().map(|(w, d)| format!("('{w}', {d})")).collect();
            sql.push_str(&format!("{ADD_HEAD}{}{ADD_TAIL}; ", rows.join(", ")));
        }
    } else {
        add(conn, deltas).await?;
    }
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

/// Whether `word` is a plain index word (`[a-z0-9]+`, as [`crate::terms`]
/// writes them): safe inside a quoted SQL literal.
fn plain(word: &str) -> bool {
    !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

const ADD_HEAD: &str = "INSERT INTO agcore_lt_terms (word, df) VALUES ";
const ADD_TAIL: &str = " ON DUPLICATE KEY UPDATE df = df + VALUES(df)";

/// Creates the rows (frequency 0) of the words of `column` not known to
/// exist, in one statement committed at once, before the write transaction
/// that will count them. That transaction then finds every row in place and
/// only updates them, locking no gaps, so writers bringing new words into a
/// scope at once do not deadlock inserting them (a row it finds missing all
/// the same is inserted there: counted right, only not gap-free).
pub(crate) async fn create_missing(conn: &mut Conn, known: &Seen, column: &str) -> Result<()> {
    let words = known.unknown_words(distinct(column));
    for chunk in words.chunks(CHUNK) {
        let rows = vec!["(?, 0)"; chunk.len()].join(", ");
        conn.exec_drop(
            format!("INSERT IGNORE INTO agcore_lt_terms (word, df) VALUES {rows}"),
            Params::Positional(chunk.iter().map(|w| Value::from(*w)).collect()),
        )
        .await?;
    }
    known.learn_words(&words);
    Ok(())
}

/// Adds `delta` to each word's frequency (rows in the given order), with
/// the words bound as parameters.
async fn add(conn: &mut impl Queryable, deltas: Vec<(&str, i64)>) -> Result<()> {
    for chunk in deltas.chunks(CHUNK) {
        let rows = vec!["(?, ?)"; chunk.len()].join(", ");
        let params: Vec<Value> = chunk
            .iter()
            .flat_map(|(word, delta)| [Value::from(*word), Value::Int(*delta)])
            .collect();
        conn.exec_drop(
            format!("{ADD_HEAD}{rows}{ADD_TAIL}"),
            Params::Positional(params),
        )
        .await?;
    }
    Ok(())
}

/// Each word's frequency, in the order of `words` (0 for a word no entry
/// holds).
pub(crate) async fn lookup(conn: &mut impl Queryable, words: &[String]) -> Result<Vec<f64>> {
    let mut found: HashMap<String, i64> = HashMap::with_capacity(words.len());
    for chunk in words.chunks(CHUNK) {
        let marks = vec!["?"; chunk.len()].join(", ");
        let rows: Vec<(String, i64)> = conn
            .exec(
                format!("SELECT word, df FROM agcore_lt_terms WHERE word IN ({marks})"),
                Params::Positional(chunk.iter().map(|w| Value::from(w.as_str())).collect()),
            )
            .await?;
        found.extend(rows);
    }
    Ok(words
        .iter()
        .map(|w| found.get(w).map_or(0.0, |&df| df.max(0) as f64))
        .collect())
}

/// Counts every word afresh from the entries unless the table was built
/// for this library's analyzer (`agcore_lt_meta`, name `df`). Runs under
/// the migration lock, after any re-index: no other process of this
/// version writes meanwhile. A run cut short leaves the old record, and the
/// next open counts again from an empty table.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn sync(conn: &mut Conn) -> Result<()> {
    let built: Option<String> = conn
        .query_first("SELECT value FROM agcore_lt_meta WHERE name = 'df'")
        .await?;
    if built.as_deref() == Some(ANALYZER_ID) {
        return Ok(());
    }
    conn.query_drop("DELETE FROM agcore_lt_terms").await?;
    let mut counts: HashMap<String, i64> = HashMap::new();
    let mut after = i64::MIN;
    loop {
        let rows: Vec<(i64, String)> = conn
            .exec(
                "SELECT id, terms FROM agcore_lt_entries WHERE id > ? ORDER BY id LIMIT ?",
                (after, SCAN_BATCH),
            )
            .await?;
        let Some(last) = rows.last().map(|r| r.0) else {
            break;
        };
        for (_, terms) in &rows {
            for word in distinct(terms) {
                *counts.entry(word.to_owned()).or_insert(0) += 1;
            }
        }
        if counts.len() >= FLUSH_WORDS {
            flush(conn, &mut counts).await?;
        }
        after = last;
    }
    flush(conn, &mut counts).await?;
    conn.exec_drop(
        "INSERT INTO agcore_lt_meta (name, value) VALUES ('df', ?)
         ON DUPLICATE KEY UPDATE value = VALUES(value)",
        (ANALYZER_ID,),
    )
    .await?;
    tracing::info!(from = ?built, to = ANALYZER_ID, "mysql: long-term document frequencies counted");
    Ok(())
}

/// Adds `counts` to the table (additive: partial counts may be written in
/// any number of flushes) and empties it.
async fn flush(conn: &mut Conn, counts: &mut HashMap<String, i64>) -> Result<()> {
    let mut sorted: Vec<(&str, i64)> = counts.iter().map(|(w, &n)| (w.as_str(), n)).collect();
    sorted.sort_unstable();
    add(conn, sorted).await?;
    counts.clear();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_words_are_sorted_and_unique() {
        let words: Vec<&str> = distinct(" s1x62  s1x61  s1x62 ").into_iter().collect();
        assert_eq!(words, ["s1x61", "s1x62"]);
        assert!(distinct("").is_empty());
    }

    #[test]
    fn only_plain_words_go_inline() {
        assert!(plain("s12x6162"));
        for word in ["", "s1x'", "S1", "s1 x", "s1x61;"] {
            assert!(!plain(word), "{word}");
        }
    }
}
