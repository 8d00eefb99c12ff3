//! A row's place in its sequence and its neighbours there, found through
//! the index on (`grp`, `created_secs`, `created_nanos`, `id`).

use rusqlite::{Connection, params};

use crate::error::Result;

/// Where a row sits in its sequence: the sequence (`grp`, the
/// [`ContextField::group_of`](agcore_memory::retriever::ContextField::group_of)
/// text), then its creation time and id — the store's list order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Position {
    pub(crate) grp: String,
    pub(crate) secs: i64,
    pub(crate) nanos: i64,
    pub(crate) id: String,
}

/// The members of `at`'s sequence within `window` on each side of `at`
/// (`at` itself excluded, whether or not a row is there), in sequence
/// order, as `(pk, terms)`.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn around(
    conn: &Connection,
    at: &Position,
    window: usize,
) -> Result<Vec<(i64, String)>> {
    if window == 0 {
        return Ok(Vec::new());
    }
    let limit = i64::try_from(window).unwrap_or(i64::MAX);
    let args = params![at.grp, at.secs, at.nanos, at.id, limit];
    let mut before: Vec<(i64, String)> = conn
        .prepare_cached(
            "SELECT pk, terms FROM memory_items WHERE grp = ?1 \
             AND (created_secs, created_nanos, id) < (?2, ?3, ?4) \
             ORDER BY created_secs DESC, created_nanos DESC, id DESC LIMIT ?5",
        )?
        .query_map(args, |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?;
    before.reverse();
    let after: Vec<(i64, String)> = conn
        .prepare_cached(
            "SELECT pk, terms FROM memory_items WHERE grp = ?1 \
             AND (created_secs, created_nanos, id) > (?2, ?3, ?4) \
             ORDER BY created_secs, created_nanos, id LIMIT ?5",
        )?
        .query_map(args, |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?;
    before.extend(after);
    Ok(before)
}

/// The context field of a row at `at`: its neighbours' `terms` in sequence
/// order, joined by spaces.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn context_at(conn: &Connection, at: &Position, window: usize) -> Result<String> {
    Ok(join(
        around(conn, at, window)?.iter().map(|(_, t)| t.as_str()),
    ))
}

/// Terms columns joined into one context field value.
pub(crate) fn join<'a>(terms: impl Iterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for t in terms.filter(|t| !t.is_empty()) {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbours_come_in_sequence_order_through_the_index() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        for (id, grp, secs, terms) in [
            ("a", "s", 1, "one"),
            ("b", "s", 2, "two"),
            ("c", "s", 2, "three"),
            ("d", "s", 5, "four"),
            ("e", "t", 3, "other"),
        ] {
            conn.execute(
                "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, \
                 terms, grp) VALUES (?1, '', 'null', ?2, 0, ?3, ?4)",
                params![id, secs, terms, grp],
            )
            .unwrap();
        }
        let at = |id: &str, secs| Position {
            grp: "s".into(),
            secs,
            nanos: 0,
            id: id.into(),
        };
        assert_eq!(context_at(&conn, &at("b", 2), 1).unwrap(), "one three");
        assert_eq!(context_at(&conn, &at("b", 2), 2).unwrap(), "one three four");
        assert_eq!(context_at(&conn, &at("a", 1), 1).unwrap(), "two");
        assert_eq!(context_at(&conn, &at("z", 9), 1).unwrap(), "four");
        assert_eq!(context_at(&conn, &at("b", 2), 0).unwrap(), "");
        let plan: String = conn
            .query_row(
                "EXPLAIN QUERY PLAN SELECT pk, terms FROM memory_items WHERE grp = ?1 \
                 AND (created_secs, created_nanos, id) > (?2, ?3, ?4) \
                 ORDER BY created_secs, created_nanos, id LIMIT ?5",
                params!["s", 1, 0, "a", 1],
                |r| r.get(3),
            )
            .unwrap();
        assert!(plan.contains("memory_items_group"), "{plan}");
    }
}
