//! BM25 and BM25F in SQL over the candidates of a search: one flat
//! expression per candidate row, whose term frequencies are counted in the
//! row's token columns (see [`crate::terms`]) and whose every constant —
//! idf, length normalisation, field weight — is computed here and bound as
//! a `DOUBLE`.
//!
//! Per query word `i` and field `f` (the own text, and the store's context
//! field of neighbouring turns), with `K_f = k1 · (1 − b + b · len_f /
//! avg_f)`:
//!
//! ```text
//! x_i     = Σ_f w_f · tf_if / K_f          (w = 1 for the own text)
//! score   = Σ_i idf_i · (k1 + 1) · (1 − 1 / (x_i + 1))
//! ```
//!
//! which is `idf · (k1 + 1) · tf / (tf + K)` — BM25 — for one field, and
//! [`Bm25F`](agcore_search::Bm25F) (normalised frequencies
//! weighted, summed, saturated once) for two, with `k1 = 1.2`, `b = 0.75`
//! and no length normalisation of a field whose lengths are all 0
//! ([`Bm25::linear_norm`], tested against both there): the arithmetic of
//! `agcore_memory::retriever`, to float rounding. Each term
//! frequency appears once in the expression, so the server counts it once
//! per row; statistics computed in SQL per row (the idf's logarithm, the
//! mean length) or derived tables, which MariaDB merges into the outer
//! query by repeating their expressions, cost about twice the time.

use agcore_search::Bm25;
use agcore_search::collection::mean_length;
use mysql_async::Value;

/// One BM25F field of the candidate rows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Field<'a> {
    /// The SQL of the row's token column (` word ` per occurrence).
    pub(crate) terms: &'a str,
    /// The SQL of the row's length in tokens.
    pub(crate) len: &'a str,
    /// The field's mean length over the rows that have it (0: none, not
    /// length-normalised).
    pub(crate) avg_len: f64,
    /// The field's weight (the own text: 1).
    pub(crate) weight: f64,
}

/// The score of a candidate row for `words` with the given `idfs` (one per
/// word) over `fields`, and its parameters in the order of their `?`.
pub(crate) fn score(words: &[String], idfs: &[f64], fields: &[Field<'_>]) -> (String, Vec<Value>) {
    let bm25 = Bm25::default();
    let mut params = Vec::with_capacity(words.len() * (1 + 5 * fields.len()));
    let mut terms = Vec::with_capacity(words.len());
    for (word, idf) in words.iter().zip(idfs) {
        params.push(Value::Double(idf * (bm25.k1 + 1.0)));
        let mut parts = Vec::with_capacity(fields.len());
        for (n, field) in fields.iter().enumerate() {
            let pattern = crate::terms::occurrence(word);
            let width = i64::try_from(pattern.len()).unwrap_or(i64::MAX);
            let (a, c) = bm25.linear_norm(field.avg_len);
            let tf = format!(
                "((LENGTH({t}) - LENGTH(REPLACE({t}, ?, ''))) DIV ?)",
                t = field.terms
            );
            let normalised = format!("{tf} / (? + ? * {})", field.len);
            if n == 0 {
                parts.push(normalised);
            } else {
                params.push(Value::Double(field.weight));
                parts.push(format!("? * {normalised}"));
            }
            params.extend([
                Value::from(pattern),
                Value::Int(width),
                Value::Double(a),
                Value::Double(c),
            ]);
        }
        terms.push(format!("? * (1e0 - 1e0 / ({} + 1e0))", parts.join(" + ")));
    }
    (terms.join(" + "), params)
}

impl<'a> Field<'a> {
    /// The field whose token column is `terms` and length `len`, holding
    /// `total` tokens over `rows` rows (its mean length; 0 when either is
    /// 0), weighted `weight`.
    pub(crate) fn new(
        terms: &'a str,
        len: &'a str,
        (total, rows): (f64, f64),
        weight: f64,
    ) -> Self {
        Self {
            terms,
            len,
            avg_len: mean_length(total, rows),
            weight,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(avg_len: f64, weight: f64) -> Field<'static> {
        Field {
            terms: "i.terms",
            len: "i.len",
            avg_len,
            weight,
        }
    }

    #[test]
    fn parameters_follow_the_marks() {
        let words = ["x61".to_owned(), "x62".to_owned()];
        let (sql, params) = score(&words, &[1.0, 2.0], &[field(4.0, 1.0)]);
        assert_eq!(sql.matches('?').count(), params.len());
        assert_eq!(params.len(), 2 * 5);
        assert_eq!(params.get(1), Some(&Value::from(" x61 ")));
        let both = [field(4.0, 1.0), field(0.0, 0.5)];
        let (sql, params) = score(&words, &[1.0, 2.0], &both);
        assert_eq!(sql.matches('?').count(), params.len());
        assert_eq!(params.len(), 2 * 10);
        assert_eq!(params.get(5), Some(&Value::Double(0.5)));
        assert_eq!(Field::new("t", "l", (10.0, 0.0), 1.0).avg_len, 0.0);
        assert_eq!(Field::new("t", "l", (10.0, 4.0), 1.0).avg_len, 2.5);
    }
}
