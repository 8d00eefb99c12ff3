//! The consistency check of one scope's index against its documents.

use std::collections::BTreeMap;

use rusqlite::{Connection, OptionalExtension};

use super::{FieldDoc, decode_postings};
use crate::error::Result;
use agcore_search::impact::{TermCounts, group};

#[cfg(test)]
/// Consistency problems of `scope`'s index against `rows` (the scope's
/// documents as `(doc, terms column)`, none with a context field); see
/// [`check_fields`].
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn check(
    conn: &Connection,
    scope: i64,
    rows: &[(i64, String)],
    skip: usize,
) -> Result<Vec<String>> {
    let docs: Vec<FieldDoc<'_>> = rows.iter().map(|(d, t)| FieldDoc::plain(*d, t)).collect();
    check_fields(conn, scope, &docs, skip)
}

/// Consistency problems of `scope`'s index against `docs` (every document
/// of the scope): statistics, document frequencies and postings must match
/// them exactly, and each term's run bounds (largest tf and context tf,
/// smallest context length) must hold for them. Empty when consistent.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn check_fields(
    conn: &Connection,
    scope: i64,
    docs: &[FieldDoc<'_>],
    skip: usize,
) -> Result<Vec<String>> {
    let mut problems = Vec::new();
    let flat = group(docs, skip);
    let n = i64::try_from(docs.len()).unwrap_or(i64::MAX);
    let expected_stats = (n, flat.tokens, flat.grouped, flat.context_tokens);
    let stats: (i64, i64, i64, i64) = conn
        .query_row(
            "SELECT docs, tokens, grouped, context_tokens FROM bm25_stats WHERE scope = ?1",
            [scope],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?
        .unwrap_or((0, 0, 0, 0));
    if stats != expected_stats {
        problems.push(format!(
            "bm25 index: statistics {stats:?}, rows give {expected_stats:?}"
        ));
    }
    let mut stmt = conn.prepare(
        "SELECT term, df, max_tf, max_ctf, min_clen FROM bm25_terms WHERE scope = ?1 AND df > 0",
    )?;
    let stored: BTreeMap<String, (i64, u32, u32, Option<u32>)> = stmt
        .query_map([scope], |r| {
            Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
        })?
        .collect::<Result<_, _>>()?;
    let expected: BTreeMap<&str, &TermCounts<'_>> =
        flat.terms.iter().map(|t| (t.term, t)).collect();
    let dfs_differ = stored.len() != expected.len()
        || stored
            .iter()
            .any(|(term, s)| expected.get(term.as_str()).is_none_or(|e| e.df != s.0));
    if dfs_differ {
        problems.push("bm25 index: document frequencies differ from the rows".to_owned());
    }
    let bounds_fail = stored
        .iter()
        .any(|(term, &(_, max_tf, max_ctf, min_clen))| {
            expected.get(term.as_str()).is_some_and(|e| {
                e.max_tf > max_tf
                    || e.max_ctf > max_ctf
                    || e.min_clen.is_some_and(|c| min_clen.is_none_or(|m| m > c))
            })
        });
    if bounds_fail {
        problems.push("bm25 index: a term's run bounds do not hold for the rows".to_owned());
    }
    let mut stmt = conn.prepare(
        "SELECT term, tfb, len, postings FROM bm25_blocks WHERE scope = ?1 \
         ORDER BY term, tfb, len, first_doc",
    )?;
    let mut postings: BTreeMap<(String, u32, u32), Vec<(u32, i64)>> = BTreeMap::new();
    let mut rows = stmt.query([scope])?;
    while let Some(row) = rows.next()? {
        let blob: Vec<u8> = row.get(3)?;
        postings
            .entry((row.get(0)?, row.get(1)?, row.get(2)?))
            .or_default()
            .extend(decode_postings(&blob));
    }
    for list in postings.values_mut() {
        list.sort_unstable_by_key(|p| p.1);
    }
    let expected: BTreeMap<(String, u32, u32), Vec<(u32, i64)>> = flat
        .groups
        .into_iter()
        .map(|((t, b, l), d)| ((t.to_owned(), b, l), d))
        .collect();
    if postings != expected {
        problems.push("bm25 index: postings differ from the rows".to_owned());
    }
    Ok(problems)
}
