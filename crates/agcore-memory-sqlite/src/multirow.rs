//! Multi-row `INSERT` statements in a few fixed sizes, so writes of any size
//! reuse cached statements.
//!
//! A batch of `n` rows is written as statements of [`MAX_ROWS`] rows, then
//! one statement of the smallest size in [`SIZES`] that holds the rest; the
//! unused rows of that statement stay unbound (`NULL`) and a `WHERE` on a
//! `NOT NULL` column skips them: few statements to parse and step through
//! for a batch of any size.

use crate::error::Result;
use std::ops::Range;
use std::sync::OnceLock;

use rusqlite::{CachedStatement, Connection, Statement, ToSql};

/// Row counts of the statements; the last one is [`MAX_ROWS`].
const SIZES: [usize; 4] = [1, 16, 256, MAX_ROWS];

/// Most rows in one statement (at most 7 parameters a row stays below
/// SQLite's 32,766-parameter limit).
pub(crate) const MAX_ROWS: usize = 4096;

/// A multi-row `INSERT … SELECT` of rows `width` parameters wide; keep it
/// in a `static` so its statement texts are built once.
#[derive(Debug)]
pub(crate) struct MultiRow {
    /// The statement up to the row source, e.g. `INSERT INTO t (a, b)`.
    head: &'static str,
    /// Parameters per row.
    width: usize,
    /// 1-based column of the row source that is never `NULL` in a real row.
    key_column: usize,
    /// The rest of the statement, e.g. `ON CONFLICT … RETURNING …` (may be empty).
    tail: &'static str,
    /// The statement texts, one per size of [`SIZES`].
    texts: OnceLock<Vec<String>>,
}

impl MultiRow {
    /// The statement `head SELECT * FROM (VALUES …) WHERE column{key_column}
    /// IS NOT NULL tail` over rows of `width` parameters.
    pub(crate) const fn new(
        head: &'static str,
        width: usize,
        key_column: usize,
        tail: &'static str,
    ) -> Self {
        Self {
            head,
            width,
            key_column,
            tail,
            texts: OnceLock::new(),
        }
    }

    /// The statement text for `size` rows (`size` one of [`SIZES`]).
    fn sql(&self, size: usize) -> &str {
        let texts = self.texts.get_or_init(|| {
            let row = format!("({})", vec!["?"; self.width].join(", "));
            SIZES
                .iter()
                .map(|&rows| {
                    let values = vec![row.as_str(); rows].join(", ");
                    format!(
                        "{} SELECT * FROM (VALUES {values}) WHERE column{} IS NOT NULL {}",
                        self.head, self.key_column, self.tail
                    )
                })
                .collect()
        });
        SIZES
            .iter()
            .position(|&s| s == size)
            .and_then(|i| texts.get(i))
            .map_or("", String::as_str)
    }

    /// The cached statement for a chunk of `rows` rows (at most
    /// [`MAX_ROWS`], see [`chunks`]), with every parameter unbound.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when SQLite rejects the statement.
    pub(crate) fn prepare<'c>(
        &self,
        conn: &'c Connection,
        rows: usize,
    ) -> Result<CachedStatement<'c>> {
        let size = size_for(rows);
        let mut stmt = conn.prepare_cached(self.sql(size))?;
        // The unused rows must read as NULL (a full statement rebinds everything).
        if rows < size {
            stmt.clear_bindings();
        }
        Ok(stmt)
    }
}

/// The statement size that holds `rows` rows (at most [`MAX_ROWS`]).
fn size_for(rows: usize) -> usize {
    SIZES
        .iter()
        .copied()
        .find(|&s| s >= rows)
        .unwrap_or(MAX_ROWS)
}

/// Row ranges of the statements writing `total` rows: full statements of
/// [`MAX_ROWS`], then the rest.
pub(crate) fn chunks(total: usize) -> impl Iterator<Item = Range<usize>> {
    (0..total)
        .step_by(MAX_ROWS)
        .map(move |start| start..(start + MAX_ROWS).min(total))
}

/// Binds `row` as row `index` (0-based) of a statement `row.len()` parameters wide.
///
/// # Errors
/// [`MemoryError::Storage`] when SQLite rejects a value.
pub(crate) fn bind_row(stmt: &mut Statement<'_>, index: usize, row: &[&dyn ToSql]) -> Result<()> {
    let first = index * row.len() + 1;
    for (offset, value) in row.iter().enumerate() {
        stmt.raw_bind_parameter(first + offset, value)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_chunks() {
        assert_eq!(size_for(0), 1);
        assert_eq!(size_for(1), 1);
        assert_eq!(size_for(2), 16);
        assert_eq!(size_for(257), MAX_ROWS);
        assert_eq!(chunks(0).count(), 0);
        let c: Vec<_> = chunks(2 * MAX_ROWS + 5).collect();
        assert_eq!(
            c,
            [
                0..MAX_ROWS,
                MAX_ROWS..2 * MAX_ROWS,
                2 * MAX_ROWS..2 * MAX_ROWS + 5
            ]
        );
    }

    #[test]
    fn padded_rows_are_skipped_and_statements_reused() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (k TEXT NOT NULL PRIMARY KEY, v INTEGER)")
            .unwrap();
        static INSERT: MultiRow = MultiRow::new(
            "INSERT INTO t (k, v)",
            2,
            1,
            "ON CONFLICT (k) DO UPDATE SET v = v + excluded.v",
        );
        for round in 0..2i64 {
            for n in [3usize, 1, 20, 300] {
                let keys: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
                for range in chunks(n) {
                    let mut stmt = INSERT.prepare(&conn, range.len()).unwrap();
                    for (slot, key) in keys[range.clone()].iter().enumerate() {
                        bind_row(&mut stmt, slot, &[key, &round]).unwrap();
                    }
                    stmt.raw_execute().unwrap();
                }
            }
        }
        let (rows, sum): (i64, i64) = conn
            .query_row("SELECT count(*), sum(v) FROM t", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        assert_eq!(rows, 300);
        // Round 1 added 1 per occurrence of each key: k0 in all 4 batches, …
        let expected: i64 = (0..300)
            .map(|i| [3, 1, 20, 300].iter().filter(|&&n| i < n).count() as i64)
            .sum();
        assert_eq!(sum, expected);
    }
}
