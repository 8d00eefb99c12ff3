//! agcore's analyzer tokens as words of a MySQL `FULLTEXT` index, and the
//! BM25 arithmetic over them.
//!
//! InnoDB's full-text parser splits text at every character that is not a
//! letter, digit or underscore, drops words shorter than
//! `innodb_ft_min_token_size` (3 by default) or longer than
//! `innodb_ft_max_token_size` (84) and words on its stop-word list, and
//! MariaDB has no CJK (`ngram`) parser. So the index never sees agcore's raw
//! tokens: each token is stored as one plain ASCII word, `x` followed by the
//! hex of its UTF-8 bytes (`x` + 64 hex digits of its SHA-256 when that
//! would be too long), optionally after a scope prefix such as `s42`. Every
//! such word is 3 to 84 characters of `[a-z0-9]`, never a stop word, and
//! matches exactly one token, whatever the server's full-text settings; a
//! CJK bigram is indexed like any word.
//!
//! A document's `terms` column holds each token occurrence as ` word `
//! (space, word, space), so the number of occurrences of a word is
//! `(LENGTH(terms) - LENGTH(REPLACE(terms, ' word ', ''))) / LENGTH(' word ')`:
//! the term frequency BM25 needs, computed by the server.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// InnoDB's default (and MariaDB's) longest indexed word.
const MAX_WORD: usize = 84;

/// The index word of `token`, after `prefix` (`""` or a scope tag such as
/// `s42`; `[a-z0-9]` only).
pub(crate) fn word(prefix: &str, token: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + 1 + 2 * token.len());
    out.push_str(prefix);
    if prefix.len() + 1 + 2 * token.len() <= MAX_WORD {
        out.push('x');
        for byte in token.as_bytes() {
            let _ = write!(out, "{byte:02x}");
        }
    } else {
        out.push('y');
        for byte in Sha256::digest(token.as_bytes()).iter().take(20) {
            let _ = write!(out, "{byte:02x}");
        }
    }
    out
}

/// How each occurrence of index word `word` is stored in a `terms` column:
/// ` word ` (see [`column`]); found with `LOCATE` or counted with
/// `REPLACE`.
pub(crate) fn occurrence(word: &str) -> String {
    format!(" {word} ")
}

/// The `terms` column of a document whose analyzer tokens are `tokens`.
pub(crate) fn column<'a>(prefix: &str, tokens: impl IntoIterator<Item = &'a String>) -> String {
    let mut out = String::new();
    for token in tokens {
        out.push(' ');
        out.push_str(&word(prefix, token));
        out.push(' ');
    }
    out
}

/// The `AGAINST (… IN BOOLEAN MODE)` text matching any of `words`: plain
/// words without operators, each optional (boolean mode's OR).
pub(crate) fn any_of(words: &[String]) -> String {
    words.join(" ")
}

/// `(LOCATE(?, column) > 0 OR …)` for `n` words: true for a row whose
/// `column` holds any of them (a scan instead of the `FULLTEXT` index, when
/// [`AccessCost`](agcore_search::pruning::AccessCost) estimates it
/// cheaper; both select the same rows); bound by [`any_word_params`].
pub(crate) fn any_word_sql(column: &str, n: usize) -> String {
    let tests = vec![format!("LOCATE(?, {column}) > 0"); n.max(1)];
    format!("({})", tests.join(" OR "))
}

/// The parameters of [`any_word_sql`]: each word's ` word ` pattern.
pub(crate) fn any_word_params(words: &[String]) -> Vec<mysql_async::Value> {
    let pattern = |word: &String| mysql_async::Value::from(occurrence(word));
    words.iter().map(pattern).collect()
}

/// `tokens` as index [`word`]s after `prefix`.
pub(crate) fn words(prefix: &str, tokens: &[String]) -> Vec<String> {
    tokens.iter().map(|t| word(prefix, t)).collect()
}

/// What a search sends to the server for one query text, exposed for the
/// fuzz target of the full-text query builder (feature `testkit`).
#[cfg(feature = "testkit")]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FulltextQuery {
    /// The index words looked up, one per distinct query token.
    pub words: Vec<String>,
    /// The `AGAINST (… IN BOOLEAN MODE)` text bound as a parameter.
    pub against: String,
}

/// The full-text query a search builds for `query` under `prefix` (`""` for
/// the store, `s<scope id>` for long-term memory); `None` when the query has
/// no token and no statement is sent.
#[cfg(feature = "testkit")]
pub fn fulltext_query(prefix: &str, query: &str) -> Option<FulltextQuery> {
    let words = words(prefix, &agcore_search::capped_query_terms(query));
    if words.is_empty() {
        return None;
    }
    let against = any_of(&words);
    Some(FulltextQuery { words, against })
}

/// The `terms` column written for `text` (feature `testkit`): every token
/// occurrence of the analyzer as ` word `.
#[cfg(feature = "testkit")]
pub fn fulltext_column(prefix: &str, text: &str) -> String {
    column(prefix, &agcore_search::index_terms(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_plain_ascii_within_innodb_limits() {
        for token in [
            "a",
            "记忆",
            "don't",
            "x_y",
            &"长".repeat(40),
            &"q".repeat(200),
        ] {
            for prefix in ["", "s1", "s123456789012"] {
                let w = word(prefix, token);
                assert!(w.len() >= 3 && w.len() <= MAX_WORD, "{w}");
                assert!(
                    w.bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
                    "{w}"
                );
            }
        }
        assert_eq!(word("", "ab"), "x6162");
        assert_eq!(word("s7", "ab"), "s7x6162");
        assert_ne!(word("", "ab"), word("s1", "ab"));
    }

    #[test]
    fn distinct_tokens_get_distinct_words() {
        let long_a = "a".repeat(100);
        let long_b = format!("{}b", "a".repeat(99));
        assert_ne!(word("", &long_a), word("", &long_b));
        assert_ne!(word("", "ab"), word("", "abc"));
    }

    #[test]
    fn the_scan_condition_has_one_parameter_per_word() {
        let sql = any_word_sql("i.terms", 3);
        assert_eq!(sql.matches('?').count(), 3);
        assert!(sql.starts_with("(LOCATE(?, i.terms) > 0 OR "));
        let params = any_word_params(&["x61".to_owned(), "x62".to_owned()]);
        assert_eq!(params, [" x61 ", " x62 "].map(mysql_async::Value::from));
    }

    #[test]
    fn the_column_pads_every_occurrence() {
        let tokens = vec!["a".to_owned(), "a".to_owned(), "b".to_owned()];
        assert_eq!(column("", &tokens), " x61  x61  x62 ");
    }
}
