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

use agcore_memory::retriever::Bm25;
use sha2::{Digest, Sha256};

/// Most distinct query terms used (as in the SQLite backend).
pub(crate) const MAX_QUERY_TERMS: usize = 256;

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

/// The weights of a query: its words found in the collection with FTS5's
/// idf, and the collection's mean document length (0 when every document is
/// empty: no length normalisation, as in `Bm25::tf_part`).
pub(crate) struct QueryWeights {
    pub(crate) words: Vec<String>,
    pub(crate) idfs: Vec<f64>,
    pub(crate) avg_len: f64,
}

impl QueryWeights {
    /// The weights of `words` with document frequencies `dfs` (same order)
    /// in a collection of `docs` documents of `total_len` tokens. `None`
    /// when no word occurs.
    pub(crate) fn new(words: Vec<String>, dfs: &[f64], docs: f64, total_len: f64) -> Option<Self> {
        let (mut found, mut idfs) = (Vec::new(), Vec::new());
        for (word, &df) in words.into_iter().zip(dfs) {
            if df > 0.0 {
                idfs.push(Bm25::fts5_idf(docs, df));
                found.push(word);
            }
        }
        if found.is_empty() {
            return None;
        }
        let avg_len = if docs > 0.0 { total_len / docs } else { 0.0 };
        Some(Self {
            words: found,
            idfs,
            avg_len,
        })
    }

    /// The BM25 score of the row whose token column is `terms` and length
    /// column `len`, as SQL with `?` parameters bound by [`Self::params`]
    /// (the text depends only on the number of words, so prepared statements
    /// are reused). `tf·(k1+1)/(tf+K)` is written `(k1+1)·(1 − K/(tf+K))`
    /// so each term frequency is computed once.
    pub(crate) fn score_sql(&self, terms: &str, len: &str) -> String {
        let k = format!("(? * (1.0 - ? + ? * {len} / ?))");
        let part = format!(
            "? * (1.0 - {k} / ((LENGTH({terms}) - LENGTH(REPLACE({terms}, ?, ''))) / ? + {k}))"
        );
        let parts = vec![part; self.words.len()];
        format!("({})", parts.join(" + "))
    }

    /// The parameters of [`Self::score_sql`], in its order.
    pub(crate) fn params(&self) -> Vec<mysql_async::Value> {
        use mysql_async::Value;
        let bm25 = Bm25::default();
        // With every document empty there is no length normalisation (K = k1).
        let (b, avg) = if self.avg_len > 0.0 {
            (bm25.b, self.avg_len)
        } else {
            (0.0, 1.0)
        };
        let k = [
            Value::Double(bm25.k1),
            Value::Double(b),
            Value::Double(b),
            Value::Double(avg),
        ];
        let mut out = Vec::with_capacity(12 * self.words.len());
        for (word, idf) in self.words.iter().zip(&self.idfs) {
            let pattern = format!(" {word} ");
            let len = i64::try_from(pattern.len()).unwrap_or(i64::MAX);
            out.push(Value::Double(idf * (bm25.k1 + 1.0)));
            out.extend(k.iter().cloned());
            out.push(Value::from(pattern));
            out.push(Value::Int(len));
            out.extend(k.iter().cloned());
        }
        out
    }
}

/// The SQL that counts, for each of `n` words, the rows of `table` whose
/// `terms` match it: `n` rows `(index, count)`, one `?` per word.
pub(crate) fn df_sql(table: &str, n: usize) -> String {
    (0..n)
        .map(|i| {
            format!(
                "SELECT {i}, COUNT(*) FROM {table} WHERE MATCH(terms) AGAINST (? IN BOOLEAN MODE)"
            )
        })
        .collect::<Vec<_>>()
        .join(" UNION ALL ")
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
    fn the_column_pads_every_occurrence() {
        let tokens = vec!["a".to_owned(), "a".to_owned(), "b".to_owned()];
        assert_eq!(column("", &tokens), " x61  x61  x62 ");
    }

    #[test]
    fn weights_keep_only_words_that_occur() {
        let w = QueryWeights::new(vec!["a".into(), "b".into()], &[0.0, 2.0], 10.0, 50.0).unwrap();
        assert_eq!(w.words, vec!["b".to_owned()]);
        assert!((w.avg_len - 5.0).abs() < 1e-12);
        assert!(QueryWeights::new(vec!["a".into()], &[0.0], 10.0, 50.0).is_none());
    }
}
