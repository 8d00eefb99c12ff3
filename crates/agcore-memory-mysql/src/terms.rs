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

use agcore_memory::retriever::{Bm25, unique_index_terms};
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

/// The distinct analyzer tokens a search for `query` looks up (at most
/// [`MAX_QUERY_TERMS`]), in the analyzer's order.
pub(crate) fn query_tokens(query: &str) -> Vec<String> {
    let mut tokens = unique_index_terms(query);
    tokens.truncate(MAX_QUERY_TERMS);
    tokens
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
    let words = words(prefix, &query_tokens(query));
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
    column(prefix, &agcore_memory::retriever::index_terms(text))
}

/// BM25 over the candidates of one `MATCH`, in one statement: the SQL
/// fragments for `n` query words. The term frequencies of each candidate
/// come from its `terms` column, the document frequencies from counting the
/// candidates that contain each word (a window over all of them: every
/// document holding a query word is a candidate), the collection size and
/// mean length from a statistics row; idf is [`Bm25::idf`] for the store and
/// FTS5's ([`Bm25::fts5_idf`], floored at `1e-6`) for long-term memory, with
/// `k1 = 1.2`, `b = 0.75` and no length normalisation when every document
/// is empty — the arithmetic of `agcore_memory::retriever::Bm25`, so scores
/// equal the SQLite backend's. One round trip, one full-text search.
pub(crate) struct Bm25Sql {
    n: usize,
    fts5_idf: bool,
}

impl Bm25Sql {
    /// The store's fragments for `n` words (at least 1): idf
    /// `ln(1 + (N − df + 0.5) / (df + 0.5))`, as [`Bm25::idf`].
    pub(crate) fn new(n: usize) -> Self {
        Self {
            n: n.max(1),
            fts5_idf: false,
        }
    }

    /// Long-term memory's fragments for `n` words: FTS5's idf, as
    /// [`Bm25::fts5_idf`].
    pub(crate) fn fts5(n: usize) -> Self {
        Self {
            n: n.max(1),
            fts5_idf: true,
        }
    }

    /// `tf0, tf1, …` of the row whose token column is `terms`: one pair of
    /// `?` per word, bound by [`Self::tf_params`].
    pub(crate) fn tf_columns(&self, terms: &str) -> String {
        (0..self.n)
            .map(|i| format!("(LENGTH({terms}) - LENGTH(REPLACE({terms}, ?, ''))) DIV ? AS tf{i}"))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The parameters of [`Self::tf_columns`]: each word's ` word ` pattern
    /// and its length.
    pub(crate) fn tf_params(words: &[String]) -> Vec<mysql_async::Value> {
        let mut out = Vec::with_capacity(2 * words.len());
        for word in words {
            let pattern = format!(" {word} ");
            let len = i64::try_from(pattern.len()).unwrap_or(i64::MAX);
            out.push(mysql_async::Value::from(pattern));
            out.push(mysql_async::Value::Int(len));
        }
        out
    }

    /// `t.tf0, …, SUM(t.tf0 > 0) OVER () AS df0, …` over derived table `t`,
    /// then `st.n` and the row's length-normalised saturation `k = k1 · (1 −
    /// b + b · len / avg)` from statistics `st` ([`Self::stats_table`]):
    /// computed once per row, not once per word and use.
    pub(crate) fn df_columns(&self) -> String {
        let tfs = (0..self.n).map(|i| format!("t.tf{i}"));
        let dfs = (0..self.n).map(|i| format!("SUM(t.tf{i} > 0) OVER () AS df{i}"));
        let k = format!(
            "st.n, ({k1:?} * (1.0 - st.b + st.b * t.len / st.avg)) AS k",
            k1 = Bm25::default().k1
        );
        tfs.chain(dfs)
            .chain(std::iter::once(k))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The statistics row `st (n, avg, b)` from `stats`, a query returning
    /// `(documents, total length)` as `DOUBLE`s named `d` and `l`.
    pub(crate) fn stats_table(stats: &str) -> String {
        format!(
            "(SELECT x.d AS n, IF(x.l > 0, x.l / x.d, 1.0) AS avg, IF(x.l > 0, {b:?}, 0.0) AS b \
             FROM ({stats}) x) st",
            b = Bm25::default().b
        )
    }

    /// The score of candidate `c` (columns `n`, `k`, `tf{i}`, `df{i}` of
    /// [`Self::df_columns`]); no parameters.
    pub(crate) fn score(&self) -> String {
        let bm25 = Bm25::default();
        let k = "c.k";
        (0..self.n)
            .map(|i| {
                let ratio = format!("(c.n - c.df{i} + 0.5) / (c.df{i} + 0.5)");
                let idf = if self.fts5_idf {
                    format!("IF(LN({ratio}) > 0, LN({ratio}), 1e-6)")
                } else {
                    format!("GREATEST(LN(1.0 + {ratio}), 0.0)")
                };
                format!(
                    "{idf} * {k1p:?} * (1.0 - {k} / (c.tf{i} + {k}))",
                    k1p = bm25.k1 + 1.0
                )
            })
            .collect::<Vec<_>>()
            .join(" + ")
    }
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
    fn fragments_have_one_pair_of_parameters_per_word() {
        let sql = Bm25Sql::new(3);
        assert_eq!(sql.tf_columns("i.terms").matches('?').count(), 6);
        assert_eq!(Bm25Sql::tf_params(&["x61".to_owned()]).len(), 2);
        assert!(sql.df_columns().contains("SUM(t.tf2 > 0) OVER () AS df2"));
        assert!(!sql.score().contains('?'));
        assert!(!Bm25Sql::stats_table("SELECT 1 AS d, 2 AS l").contains('?'));
    }
}
