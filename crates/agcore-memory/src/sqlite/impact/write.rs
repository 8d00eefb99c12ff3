//! Keeping the impact-ordered index in step with the documents: postings
//! grouped into blocks per (term, tf bucket, length range), added and removed
//! in the writer's transaction.

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};

use super::{
    BLOCK_DOCS, LEN_SHIFT, Posting, TF_BUCKETS, decode_postings, encode_postings, term_frequencies,
};
use crate::MemoryError;

/// A (term, bucket, length range) group key.
type GroupKey<'a> = (&'a str, u32, u32);
/// A block to write: its group key fields and postings.
type BlockRef<'a> = (&'a str, u32, u32, &'a [Posting]);
/// A block to write, owning its postings.
type BlockOwned<'a> = (&'a str, u32, u32, Vec<Posting>);

/// Postings of `docs` grouped by (term, bucket, length range), sorted by
/// document; per term: (documents, largest tf); the total length.
#[allow(clippy::type_complexity)]
pub(super) fn group<'a>(
    docs: &'a [(i64, &'a str)],
    skip: usize,
) -> (
    Vec<(GroupKey<'a>, Vec<(u32, i64)>)>,
    Vec<(&'a str, i64, u32)>,
    i64,
) {
    let mut groups: HashMap<GroupKey<'a>, Vec<(u32, i64)>> = HashMap::new();
    let mut terms: HashMap<&str, (i64, u32)> = HashMap::new();
    let mut tokens = 0i64;
    for &(doc, text) in docs {
        let (len, tfs) = term_frequencies(text, skip);
        tokens += i64::from(len);
        for (term, tf) in tfs {
            groups
                .entry((term, tf.min(TF_BUCKETS), len >> LEN_SHIFT))
                .or_default()
                .push((len, doc));
            let t = terms.entry(term).or_insert((0, 0));
            t.0 += 1;
            t.1 = t.1.max(tf);
        }
    }
    let mut groups: Vec<(GroupKey<'a>, Vec<(u32, i64)>)> = groups.into_iter().collect();
    groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (_, list) in &mut groups {
        list.sort_unstable_by_key(|p| p.1);
        list.dedup_by_key(|p| p.1);
    }
    let mut terms: Vec<(&str, i64, u32)> = terms.into_iter().map(|(t, (n, m))| (t, n, m)).collect();
    terms.sort_unstable();
    (groups, terms, tokens)
}

/// Writes of at most this many documents append to existing blocks.
const SMALL_WRITE: usize = 16;

/// When the last block of `key` has room for `list`, deletes it and returns
/// its postings merged with `list` (to be inserted again); `None` otherwise.
fn join_last_block(
    conn: &Connection,
    scope: i64,
    key: GroupKey<'_>,
    list: &[(u32, i64)],
) -> Result<Option<Vec<(u32, i64)>>, MemoryError> {
    let (term, tfb, lenb) = key;
    let last: Option<(i64, Vec<u8>)> = conn
        .prepare_cached(
            "SELECT first_doc, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2 \
             AND tfb = ?3 AND lenb = ?4 ORDER BY first_doc DESC LIMIT 1",
        )?
        .query_row(params![scope, term, tfb, lenb], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?;
    let Some((first, blob)) = last else {
        return Ok(None);
    };
    if blob.len() / 12 + list.len() > BLOCK_DOCS {
        return Ok(None);
    }
    let mut postings = decode_postings(&blob);
    postings.extend_from_slice(list);
    postings.sort_unstable_by_key(|p| p.1);
    postings.dedup_by_key(|p| p.1);
    conn.prepare_cached(
        "DELETE FROM bm25_blocks WHERE scope = ?1 AND term = ?2 AND tfb = ?3 AND lenb = ?4 \
         AND first_doc = ?5",
    )?
    .execute(params![scope, term, tfb, lenb, first])?;
    Ok(Some(postings))
}

/// Rows per multi-row `INSERT` into `bm25_blocks` (7 parameters each).
const BLOCKS_PER_STATEMENT: usize = 64;

/// Inserts blocks `(term, tfb, lenb, postings)` of `scope`, several per statement.
fn insert_blocks(
    conn: &Connection,
    scope: i64,
    blocks: &[BlockRef<'_>],
) -> Result<(), MemoryError> {
    for chunk in blocks.chunks(BLOCKS_PER_STATEMENT) {
        let encoded: Vec<(i64, i64, Vec<u8>)> = chunk
            .iter()
            .map(|(_, _, _, p)| {
                let first = p.first().map_or(0, |x| x.1);
                let last = p.last().map_or(0, |x| x.1);
                (first, last, encode_postings(p))
            })
            .collect();
        let mut params: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(chunk.len() * 7);
        for ((term, tfb, lenb, _), (first, last, blob)) in chunk.iter().zip(&encoded) {
            params.extend([
                &scope as &dyn rusqlite::ToSql,
                term,
                tfb,
                lenb,
                first,
                last,
                blob,
            ]);
        }
        let values = vec!["(?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ");
        conn.prepare_cached(&format!(
            "INSERT INTO bm25_blocks (scope, term, tfb, lenb, first_doc, last_doc, postings) \
             VALUES {values}"
        ))?
        .execute(params.as_slice())?;
    }
    Ok(())
}

/// Adds `docs` (`(doc, terms column)`, each not indexed yet) to `scope`: their
/// postings, document frequencies and the collection statistics. Run it in
/// the transaction that wrote the documents.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn add_docs(
    conn: &Connection,
    scope: i64,
    docs: &[(i64, &str)],
    skip: usize,
) -> Result<(), MemoryError> {
    if docs.is_empty() {
        return Ok(());
    }
    let (groups, terms, tokens) = group(docs, skip);
    let mut blocks: Vec<BlockRef<'_>> = Vec::with_capacity(groups.len());
    let mut merged: Vec<BlockOwned<'_>> = Vec::new();
    for ((term, tfb, lenb), list) in &groups {
        // Small writes (single saves) join the group's last block while it
        // has room, so blocks stay full however the documents arrive.
        if docs.len() <= SMALL_WRITE
            && let Some(joined) = join_last_block(conn, scope, (term, *tfb, *lenb), list)?
        {
            merged.push((term, *tfb, *lenb, joined));
            continue;
        }
        for block in list.chunks(BLOCK_DOCS) {
            blocks.push((term, *tfb, *lenb, block));
        }
    }
    blocks.extend(merged.iter().map(|(t, b, l, p)| (*t, *b, *l, p.as_slice())));
    insert_blocks(conn, scope, &blocks)?;
    for chunk in terms.chunks(BLOCKS_PER_STATEMENT) {
        let mut params: Vec<&dyn rusqlite::ToSql> = Vec::with_capacity(chunk.len() * 4);
        for (term, n, max_tf) in chunk {
            params.extend([&scope as &dyn rusqlite::ToSql, term, n, max_tf]);
        }
        let values = vec!["(?, ?, ?, ?)"; chunk.len()].join(", ");
        conn.prepare_cached(&format!(
            "INSERT INTO bm25_terms (scope, term, df, max_tf) VALUES {values} \
             ON CONFLICT (scope, term) DO UPDATE SET df = df + excluded.df, \
             max_tf = max(max_tf, excluded.max_tf)"
        ))?
        .execute(params.as_slice())?;
    }
    let n = i64::try_from(docs.len()).unwrap_or(i64::MAX);
    conn.prepare_cached(
        "INSERT INTO bm25_stats (scope, docs, tokens) VALUES (?1, ?2, ?3) \
         ON CONFLICT (scope) DO UPDATE SET docs = docs + excluded.docs, \
         tokens = tokens + excluded.tokens",
    )?
    .execute(params![scope, n, tokens])?;
    Ok(())
}

/// Removes `docs` (`(doc, terms column as indexed)`) from `scope`: their
/// postings (rewriting the blocks that held them), document frequencies and
/// the collection statistics. Run it in the transaction that removes or
/// rewrites the documents.
///
/// # Errors
/// [`MemoryError::Storage`].
pub(crate) fn remove_docs(
    conn: &Connection,
    scope: i64,
    docs: &[(i64, &str)],
    skip: usize,
) -> Result<(), MemoryError> {
    if docs.is_empty() {
        return Ok(());
    }
    let (groups, terms, tokens) = group(docs, skip);
    let mut blocks = conn.prepare_cached(
        "SELECT first_doc, postings FROM bm25_blocks WHERE scope = ?1 AND term = ?2 \
         AND tfb = ?3 AND lenb = ?4 AND first_doc <= ?6 AND last_doc >= ?5",
    )?;
    let mut delete = conn.prepare_cached(
        "DELETE FROM bm25_blocks WHERE scope = ?1 AND term = ?2 AND tfb = ?3 AND lenb = ?4 \
         AND first_doc = ?5",
    )?;
    let mut rewritten: Vec<BlockOwned<'_>> = Vec::new();
    for ((term, tfb, lenb), gone) in &groups {
        let (Some(min), Some(max)) = (gone.first(), gone.last()) else {
            continue;
        };
        let found: Vec<(i64, Vec<u8>)> = blocks
            .query_map(params![scope, term, tfb, lenb, min.1, max.1], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })?
            .collect::<Result<_, _>>()?;
        for (first, blob) in found {
            let held = decode_postings(&blob);
            let kept: Vec<(u32, i64)> = held
                .iter()
                .copied()
                .filter(|p| gone.binary_search_by_key(&p.1, |g| g.1).is_err())
                .collect();
            if kept.len() == held.len() {
                continue;
            }
            delete.execute(params![scope, term, tfb, lenb, first])?;
            if !kept.is_empty() {
                rewritten.push((term, *tfb, *lenb, kept));
            }
        }
    }
    let again: Vec<BlockRef<'_>> = rewritten
        .iter()
        .map(|(t, b, l, p)| (*t, *b, *l, p.as_slice()))
        .collect();
    insert_blocks(conn, scope, &again)?;
    let mut sub =
        conn.prepare_cached("UPDATE bm25_terms SET df = df - ?3 WHERE scope = ?1 AND term = ?2")?;
    for (term, n, _) in &terms {
        sub.execute(params![scope, term, n])?;
    }
    let n = i64::try_from(docs.len()).unwrap_or(i64::MAX);
    conn.prepare_cached(
        "UPDATE bm25_stats SET docs = docs - ?2, tokens = tokens - ?3 WHERE scope = ?1",
    )?
    .execute(params![scope, n, tokens])?;
    Ok(())
}
