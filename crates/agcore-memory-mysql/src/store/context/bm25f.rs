//! BM25F over the own text and the context field, in SQL: the fragments of
//! the store's search when it has a context field. The arithmetic of
//! [`Bm25F`](agcore_memory::retriever::Bm25F): per field a
//! length-normalised frequency (the own field by the mean length over all
//! items, the context field by its mean over the items in a sequence), the
//! context one weighted, summed, then saturated once; a term absent from the
//! context field scores as plain BM25 (the store's [`Bm25Sql`] formula). The
//! document frequency counts either field (kept by the writers, see
//! `store/df.rs`, and given); idf is `ln(1 + (N − df + 0.5) / (df + 0.5))`.
//!
//! [`Bm25Sql`]: crate::bm25::Bm25Sql

use agcore_memory::retriever::Bm25;

/// The fragments for `n` query words and a context `weight` in `(0, 1]`.
pub(crate) struct Bm25FSql {
    n: usize,
    weight: f64,
}

impl Bm25FSql {
    pub(crate) fn new(n: usize, weight: f64) -> Self {
        Self {
            n: n.max(1),
            weight: if weight.is_finite() { weight } else { 0.0 },
        }
    }

    /// `tf0, …, ctf0, …` of the row whose own words are `terms` and context
    /// words `context`: one pair of `?` per word and field, bound by
    /// [`Self::tf_params`].
    pub(crate) fn tf_columns(&self, terms: &str, context: &str) -> String {
        let count = |column: &str, name: &str, i: usize| {
            format!("(LENGTH({column}) - LENGTH(REPLACE({column}, ?, ''))) DIV ? AS {name}{i}")
        };
        let own = (0..self.n).map(|i| count(terms, "tf", i));
        let ctx = (0..self.n).map(|i| count(context, "ctf", i));
        own.chain(ctx).collect::<Vec<_>>().join(", ")
    }

    /// The parameters of [`Self::tf_columns`]: each word's ` word ` pattern
    /// and its length, for the own field and again for the context field.
    pub(crate) fn tf_params(words: &[String]) -> Vec<mysql_async::Value> {
        let own = crate::bm25::Bm25Sql::tf_params(words);
        let mut out = own.clone();
        out.extend(own);
        out
    }

    /// `t.tf*, t.ctf*, st.df0, …` over derived table `t`, then `st.n` and
    /// each row's length normalisation of both fields (`n1`, `n2`) from
    /// statistics `st` ([`Self::given_stats_table`]): computed once per
    /// row, not once per word and use.
    pub(crate) fn given_df_columns(&self) -> String {
        let tfs = (0..self.n).map(|i| format!("t.tf{i}, t.ctf{i}"));
        let dfs = (0..self.n).map(|i| format!("st.df{i}"));
        let norms = [
            "st.n".to_owned(),
            "(1.0 - st.b + st.b * t.len / st.avg) AS n1".to_owned(),
            "(1.0 - st.cb + st.cb * t.clen / st.cavg) AS n2".to_owned(),
        ];
        tfs.chain(dfs).chain(norms).collect::<Vec<_>>().join(", ")
    }

    /// The statistics row `st (n, avg, b, cavg, cb, df0, …)` from
    /// parameters ([`Self::given_stats_params`]): the items and their total
    /// length, each word's document frequency, then the items in a sequence
    /// and their total field length. A field whose lengths are all 0 is not
    /// length-normalised.
    pub(crate) fn given_stats_table(&self) -> String {
        let dfs: String = (0..self.n).map(|i| format!(", ? AS df{i}")).collect();
        let cols: String = (0..self.n).map(|i| format!(", x.df{i}")).collect();
        format!(
            "(SELECT x.d AS n, IF(x.l > 0, x.l / x.d, 1.0) AS avg, IF(x.l > 0, {b:?}, 0.0) AS b, \
             IF(y.g > 0 AND y.cl > 0, y.cl / y.g, 1.0) AS cavg, \
             IF(y.g > 0 AND y.cl > 0, {b:?}, 0.0) AS cb{cols} \
             FROM (SELECT ? AS d, ? AS l{dfs}) x CROSS JOIN (SELECT ? AS g, ? AS cl) y) st",
            b = Bm25::default().b
        )
    }

    /// The parameters of [`Self::given_stats_table`], as `DOUBLE`s.
    pub(crate) fn given_stats_params(
        (docs, total_len): (f64, f64),
        dfs: &[f64],
        (grouped, context_len): (f64, f64),
    ) -> Vec<mysql_async::Value> {
        [docs, total_len]
            .into_iter()
            .chain(dfs.iter().copied())
            .chain([grouped, context_len])
            .map(mysql_async::Value::Double)
            .collect()
    }

    /// The score of candidate `c` (columns `n`, `n1`, `n2`, `tf{i}`,
    /// `ctf{i}`, `df{i}` of [`Self::given_df_columns`]); no parameters.
    pub(crate) fn score(&self) -> String {
        let bm25 = Bm25::default();
        let (k1, k1p, w) = (bm25.k1, bm25.k1 + 1.0, self.weight);
        let k = format!("({k1:?} * c.n1)");
        (0..self.n)
            .map(|i| {
                let ratio = format!("(c.n - c.df{i} + 0.5) / (c.df{i} + 0.5)");
                let idf = format!("GREATEST(LN(1.0 + {ratio}), 0.0)");
                let fields = format!("(c.tf{i} / c.n1 + {w:?} * c.ctf{i} / c.n2)");
                format!(
                    "{idf} * IF(c.ctf{i} > 0 AND {w:?} > 0, \
                     {fields} * {k1p:?} / ({k1:?} + {fields}), \
                     {k1p:?} * (1.0 - {k} / (c.tf{i} + {k})))"
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
    fn fragments_have_parameters_for_both_fields() {
        let sql = Bm25FSql::new(3, 0.5);
        assert_eq!(
            sql.tf_columns("i.terms", "x.context_terms")
                .matches('?')
                .count(),
            12
        );
        assert_eq!(Bm25FSql::tf_params(&["x61".to_owned()]).len(), 4);
        assert!(sql.given_df_columns().contains("st.df2"));
        assert!(!sql.score().contains('?'));
        assert!(sql.score().contains("0.5 * c.ctf1 / c.n2"));
        assert!(sql.given_df_columns().ends_with("AS n2"));
        assert_eq!(sql.given_stats_table().matches('?').count(), 7);
        assert_eq!(
            Bm25FSql::given_stats_params((1.0, 2.0), &[3.0; 3], (4.0, 5.0)).len(),
            7
        );
        assert_eq!(Bm25FSql::new(1, f64::NAN).weight, 0.0);
    }
}
