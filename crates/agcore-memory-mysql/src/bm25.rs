//! BM25 in SQL over the candidates of a `FULLTEXT` match: term frequencies
//! counted in each candidate's `terms` column (see [`crate::terms`]),
//! document frequencies given (kept by the writers, see
//! [`crate::doc_freq`]).

use agcore_memory::retriever::Bm25;

/// BM25 over the candidates of one `MATCH`, in one statement: the SQL
/// fragments for `n` query words. The term frequencies of each candidate
/// come from its `terms` column, the document frequencies, collection size
/// and total length from parameters; idf is [`Bm25::idf`] for the store and
/// FTS5's ([`Bm25::fts5_idf`], floored at `1e-6`) for long-term memory, with
/// `k1 = 1.2`, `b = 0.75` and no length normalisation when every document
/// is empty — the arithmetic of `agcore_memory::retriever::Bm25`, so scores
/// equal the SQLite backend's.
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

    /// `t.tf0, …`, the document frequencies `st.df0, …` of the statistics
    /// row of [`Self::given_stats_table`], then `st.n` and the row's
    /// length-normalised saturation `k = k1 · (1 − b + b · len / avg)`:
    /// computed once per row, not once per word and use.
    pub(crate) fn given_df_columns(&self) -> String {
        let tfs = (0..self.n).map(|i| format!("t.tf{i}"));
        let dfs = (0..self.n).map(|i| format!("st.df{i}"));
        let k = format!(
            "st.n, ({k1:?} * (1.0 - st.b + st.b * t.len / st.avg)) AS k",
            k1 = Bm25::default().k1
        );
        tfs.chain(dfs)
            .chain(std::iter::once(k))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The statistics row `st (n, avg, b, df0, …)` from parameters: the
    /// documents and total length, then each word's document frequency,
    /// bound by [`Self::given_stats_params`]; no length normalisation when
    /// the total length is 0.
    pub(crate) fn given_stats_table(&self) -> String {
        let dfs: String = (0..self.n).map(|i| format!(", ? AS df{i}")).collect();
        let cols: String = (0..self.n).map(|i| format!(", x.df{i}")).collect();
        format!(
            "(SELECT x.d AS n, IF(x.l > 0, x.l / x.d, 1.0) AS avg, IF(x.l > 0, {b:?}, 0.0) AS b{cols} \
             FROM (SELECT ? AS d, ? AS l{dfs}) x) st",
            b = Bm25::default().b
        )
    }

    /// The parameters of [`Self::given_stats_table`]: `docs`, `total_len`
    /// and one document frequency per word, as `DOUBLE`s.
    pub(crate) fn given_stats_params(
        docs: f64,
        total_len: f64,
        dfs: &[f64],
    ) -> Vec<mysql_async::Value> {
        [docs, total_len]
            .into_iter()
            .chain(dfs.iter().copied())
            .map(mysql_async::Value::Double)
            .collect()
    }

    /// The score of candidate `c` (columns `n`, `k`, `tf{i}`, `df{i}` of
    /// [`Self::given_df_columns`]); no parameters.
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
    fn fragments_have_one_pair_of_parameters_per_word() {
        let sql = Bm25Sql::new(3);
        assert_eq!(sql.tf_columns("i.terms").matches('?').count(), 6);
        assert_eq!(Bm25Sql::tf_params(&["x61".to_owned()]).len(), 2);
        assert!(!sql.score().contains('?'));
        assert_eq!(sql.given_stats_table().matches('?').count(), 5);
        assert_eq!(Bm25Sql::given_stats_params(1.0, 2.0, &[3.0; 3]).len(), 5);
        assert!(sql.given_df_columns().contains("st.df2"));
    }
}
