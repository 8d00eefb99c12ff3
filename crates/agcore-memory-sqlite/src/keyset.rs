//! Reading a whole table in batches by keyset (re-indexing, backfills):
//! each batch starts past the last key of the one before, so no batch
//! re-reads or skips a row and none needs an `OFFSET`.

use rusqlite::{Connection, Row};

use crate::error::Result;

/// Runs `each` on the rows `sql` selects, batch after batch, until a batch
/// is empty: `sql` selects, in the order of an integer key in its first
/// column, at most `?2` (`batch`) rows whose key is past `?1` (the last key
/// of the batch before; `i64::MIN` at first); `read` decodes a row.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError), or what `read` or
/// `each` returns.
pub(crate) fn in_batches<T>(
    conn: &Connection,
    sql: &str,
    batch: i64,
    mut read: impl FnMut(&Row<'_>) -> rusqlite::Result<T>,
    mut each: impl FnMut(Vec<T>) -> Result<()>,
) -> Result<()> {
    let mut after = i64::MIN;
    loop {
        let mut last = None;
        let rows: Vec<T> = conn
            .prepare_cached(sql)?
            .query_map([after, batch], |r| {
                last = Some(r.get::<_, i64>(0)?);
                read(r)
            })?
            .collect::<std::result::Result<_, _>>()?;
        let Some(last) = last else {
            return Ok(());
        };
        each(rows)?;
        after = last;
    }
}
