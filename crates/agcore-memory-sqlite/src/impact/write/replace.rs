//! Re-indexing documents in place: [`remove_fields`](super::remove_fields)
//! of their old entries then [`add_fields`](super::add_fields) of their new
//! ones, except that a posting both hold — the same document under the same
//! (term, run code, key length) — stays in its block. A row whose context
//! field changed keeps most of its own terms' postings this way.

use rusqlite::Connection;

use super::{add_stats, remove_blocks, remove_stats, write_blocks};
use crate::error::Result;
use crate::impact::FieldDoc;
use agcore_search::impact::group_docs_parallel;

/// Replaces the index entries `old` (as indexed) by `new` in `scope`: the
/// statistics change as by removing `old` and adding `new`; only postings
/// that differ are written. A document may be in `old` only (removed), in
/// `new` only (added) or in both (re-indexed).
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn replace_fields(
    conn: &Connection,
    scope: i64,
    old: &[FieldDoc<'_>],
    new: &[FieldDoc<'_>],
    skip: usize,
) -> Result<()> {
    let removed = group_docs_parallel(old, skip);
    let added = group_docs_parallel(new, skip);
    if !old.is_empty() {
        remove_blocks(conn, scope, &removed.without(&added))?;
        remove_stats(conn, scope, &removed, old.len())?;
    }
    if !new.is_empty() {
        if old.is_empty() {
            write_blocks(conn, scope, &added)?;
        } else {
            write_blocks(conn, scope, &added.without(&removed))?;
        }
        add_stats(conn, scope, &added)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::impact::{add_fields, check_fields};

    fn doc<'a>(doc: i64, terms: &'a str, context: &'a str) -> FieldDoc<'a> {
        FieldDoc {
            doc,
            terms,
            context: Some(context),
        }
    }

    #[test]
    fn a_replaced_field_leaves_the_index_as_a_fresh_build() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        let before = [
            doc(1, "red fox", "jump"),
            doc(2, "jump", "red fox"),
            doc(3, "lazy dog", ""),
        ];
        add_fields(&conn, 0, &before, 0).unwrap();
        let old = [before[0], before[1]];
        let after = [
            doc(1, "red fox", "jump lazy"),
            doc(2, "jump high", "red fox"),
        ];
        replace_fields(&conn, 0, &old, &after, 0).unwrap();
        let now = [after[0], after[1], before[2]];
        assert_eq!(
            check_fields(&conn, 0, &now, 0).unwrap(),
            Vec::<String>::new()
        );
        replace_fields(&conn, 0, &now[2..], &[], 0).unwrap();
        assert_eq!(
            check_fields(&conn, 0, &now[..2], 0).unwrap(),
            Vec::<String>::new()
        );
    }
}
