//! A row's place in its sequence, and runs of a sequence read in list
//! order through the index on (`grp`, `created_secs`, `created_nanos`,
//! `id`): three index range scans per run.

use agcore_search::contextual::upkeep::{RunMember, SpaceJoined};
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

/// A member of a run: `(pk, terms, context_terms)`.
pub(crate) type RunRow = (i64, String, String);

/// A stored row as a member of its sequence's run: `(pk, terms,
/// context_terms)`; SQLite keeps no field lengths (they follow from the
/// words), so lengths are 0.
pub(crate) fn member((pk, terms, context): RunRow) -> RunMember<i64, SpaceJoined> {
    RunMember {
        doc: pk,
        own: SpaceJoined(terms),
        len: 0,
        stored: Some((SpaceJoined(context), 0)),
    }
}

/// Writes row `pk`'s context field.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn set_context(conn: &Connection, pk: i64, terms: &str) -> Result<()> {
    conn.prepare_cached("UPDATE memory_items SET context_terms = ?2 WHERE pk = ?1")?
        .execute(params![pk, terms])?;
    Ok(())
}

/// The members of sequence `lo.grp` read around `lo..=hi` (two places of
/// it, `lo <= hi`), in list order: up to `margin` before `lo`, every member
/// from `lo` to `hi`, up to `margin` after `hi`; and how many are before
/// and after — the run of
/// [`agcore_search::contextual::upkeep`].
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn run(
    conn: &Connection,
    (lo, hi): (&Position, &Position),
    margin: usize,
) -> Result<(Vec<RunRow>, usize, usize)> {
    let limit = i64::try_from(margin).unwrap_or(i64::MAX);
    let read = |sql: &str, args: &[&dyn rusqlite::ToSql]| -> Result<Vec<RunRow>> {
        Ok(conn
            .prepare_cached(sql)?
            .query_map(args, |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<std::result::Result<_, _>>()?)
    };
    let mut members = read(
        "SELECT pk, terms, context_terms FROM memory_items WHERE grp = ?1 \
         AND (created_secs, created_nanos, id) < (?2, ?3, ?4) \
         ORDER BY created_secs DESC, created_nanos DESC, id DESC LIMIT ?5",
        params![lo.grp, lo.secs, lo.nanos, lo.id, limit],
    )?;
    members.reverse();
    let before = members.len();
    members.extend(read(
        "SELECT pk, terms, context_terms FROM memory_items WHERE grp = ?1 \
         AND (created_secs, created_nanos, id) >= (?2, ?3, ?4) \
         AND (created_secs, created_nanos, id) <= (?5, ?6, ?7) \
         ORDER BY created_secs, created_nanos, id",
        params![lo.grp, lo.secs, lo.nanos, lo.id, hi.secs, hi.nanos, hi.id],
    )?);
    let after = read(
        "SELECT pk, terms, context_terms FROM memory_items WHERE grp = ?1 \
         AND (created_secs, created_nanos, id) > (?2, ?3, ?4) \
         ORDER BY created_secs, created_nanos, id LIMIT ?5",
        params![hi.grp, hi.secs, hi.nanos, hi.id, limit],
    )?;
    let n_after = after.len();
    members.extend(after);
    Ok((members, before, n_after))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_comes_in_sequence_order_through_the_index() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        for (id, grp, secs, terms) in [
            ("a", "s", 1, "one"),
            ("b", "s", 2, "two"),
            ("c", "s", 2, "three"),
            ("d", "s", 5, "four"),
            ("f", "s", 6, "five"),
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
        let words = |run: &[RunRow]| run.iter().map(|r| r.1.clone()).collect::<Vec<_>>();
        let (members, before, after) = run(&conn, (&at("b", 2), &at("c", 2)), 1).unwrap();
        assert_eq!(words(&members), ["one", "two", "three", "four"]);
        assert_eq!((before, after), (1, 1));
        let (members, before, after) = run(&conn, (&at("z", 2), &at("z", 2)), 9).unwrap();
        assert_eq!(words(&members), ["one", "two", "three", "four", "five"]);
        assert_eq!((before, after), (3, 2), "a place no row holds");
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
