//! The storage-independent arithmetic of a BM25 / BM25F index kept in a
//! database: a document's term frequencies as its postings hold them
//! ([`term_counts`], [`field_postings`]), the mean field lengths the collection statistics
//! give ([`mean_length`]), and a query's terms that occur in the
//! collection with their idf ([`found_terms`]). The database backends
//! read the statistics and document frequencies with SQL of their own and
//! hand them to these functions, so every backend weighs a query alike.

use std::collections::BTreeMap;

/// The distinct terms of `tokens` (an analyzer's output, repeats meaning
/// occurrences) with their frequencies, in term order. A frequency past
/// `i32::MAX` stays there.
pub fn term_counts(tokens: Vec<String>) -> BTreeMap<String, i32> {
    let mut counts = BTreeMap::new();
    for token in tokens {
        let count: &mut i32 = counts.entry(token).or_insert(0);
        *count = count.saturating_add(1);
    }
    counts
}

/// The postings of a document with a second field (BM25F's context
/// field): every term of its own terms (`own`) or of that field
/// (`context`), in term order, with its frequency in each (0 in a field
/// without it).
pub fn field_postings<'a>(
    own: &'a BTreeMap<String, i32>,
    context: &'a BTreeMap<String, i32>,
) -> BTreeMap<&'a str, (i32, i32)> {
    let mut merged: BTreeMap<&str, (i32, i32)> = BTreeMap::new();
    for (term, &tf) in own {
        merged.entry(term.as_str()).or_default().0 = tf;
    }
    for (term, &ctf) in context {
        merged.entry(term.as_str()).or_default().1 = ctf;
    }
    merged
}

/// The mean length of a field from its summed length `total` over `count`
/// documents: `total / count`, or 0 — no length normalisation — when
/// either is not positive (no document has the field, or every one is
/// empty; BM25's `tf_part` then normalises by 1).
#[inline]
pub fn mean_length(total: f64, count: f64) -> f64 {
    if count > 0.0 && total > 0.0 {
        total / count
    } else {
        0.0
    }
}

/// The terms of a query that occur in the collection, with their document
/// frequencies and idfs, in the query's order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct FoundTerms<T> {
    /// The terms with a positive document frequency.
    pub terms: Vec<T>,
    /// Their document frequencies.
    pub dfs: Vec<f64>,
    /// Their idfs.
    pub idfs: Vec<f64>,
}

impl<T> FoundTerms<T> {
    /// Whether no term of the query occurs in the collection.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }
}

/// The `(term, document frequency)` pairs of a query whose frequency is
/// positive (a term no document holds adds 0 to every score), each with
/// `idf(documents, df)` — [`Bm25::idf`](crate::Bm25::idf) or
/// [`Bm25::fts5_idf`](crate::Bm25::fts5_idf).
pub fn found_terms<T>(
    terms: impl IntoIterator<Item = (T, f64)>,
    documents: f64,
    idf: fn(f64, f64) -> f64,
) -> FoundTerms<T> {
    let mut found = FoundTerms {
        terms: Vec::new(),
        dfs: Vec::new(),
        idfs: Vec::new(),
    };
    for (term, df) in terms {
        if df > 0.0 {
            found.idfs.push(idf(documents, df));
            found.dfs.push(df);
            found.terms.push(term);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Bm25;

    #[test]
    fn counts_are_per_distinct_term_in_order() {
        let tokens = ["fox", "red", "fox"].map(str::to_owned).to_vec();
        let counts: Vec<(String, i32)> = term_counts(tokens).into_iter().collect();
        assert_eq!(counts, [("fox".to_owned(), 2), ("red".to_owned(), 1)]);
        assert!(term_counts(Vec::new()).is_empty());
    }

    #[test]
    fn postings_hold_each_term_of_either_field() {
        let own = term_counts(["fox", "fox", "red"].map(str::to_owned).to_vec());
        let context = term_counts(["red", "den"].map(str::to_owned).to_vec());
        let postings: Vec<_> = field_postings(&own, &context).into_iter().collect();
        assert_eq!(
            postings,
            [("den", (0, 1)), ("fox", (2, 0)), ("red", (1, 1))]
        );
    }

    #[test]
    fn a_mean_without_documents_or_length_is_zero() {
        assert_eq!(mean_length(10.0, 4.0), 2.5);
        assert_eq!(mean_length(10.0, 0.0), 0.0);
        assert_eq!(mean_length(0.0, 4.0), 0.0);
    }

    #[test]
    fn only_terms_the_collection_holds_are_weighed() {
        let found = found_terms([("a", 2.0), ("b", 0.0), ("c", 5.0)], 10.0, Bm25::idf);
        assert_eq!(found.terms, ["a", "c"]);
        assert_eq!(found.dfs, [2.0, 5.0]);
        assert_eq!(found.idfs, [Bm25::idf(10.0, 2.0), Bm25::idf(10.0, 5.0)]);
        assert!(found_terms([("b", 0.0)], 10.0, Bm25::fts5_idf).is_empty());
    }
}
