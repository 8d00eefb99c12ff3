//! The store's context field ([`ContextField`]): each item of a sequence
//! (metadata `session` by default) is indexed with a second BM25F field
//! holding its `window` neighbours' terms on each side (Robertson, Zaragoza
//! & Taylor 2004), as [`agcore_memory::InMemoryStore`] does, so the two
//! stores rank the same items alike.
//!
//! - Rows: `grp` holds the item's sequence (`ContextField::group_of`, NULL
//!   when none), `context_terms` its neighbours' `terms` joined (empty when
//!   none); neighbours are found through the index on (`grp`,
//!   `created_secs`, `created_nanos`, `id`), the store's list order.
//! - Index: a document's postings carry both fields (see
//!   [`agcore_search::impact::run_code`]); the writer keeps fields and postings
//!   current in the transaction of every save, replacement, deletion and
//!   eviction ([`settle`]).
//! - Settings: `memory_context_field` records the sequence key and window
//!   the rows were indexed with (NULL key: no field); opening with other
//!   settings re-derives every field and rebuilds the store's postings in
//!   one transaction ([`sync`]). The weight only matters at search time.

mod run;
mod settle;

use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::stored_group;
use agcore_search::contextual::upkeep::{RunMember, SpaceJoined, changed};
use rusqlite::{Connection, params};

use super::search::STORE_SCOPE;
use crate::component::unless_current;
use crate::error::Result;
use crate::impact::BATCH;
use crate::impact::{self, FieldDoc};
use crate::keyset::in_batches;
pub(crate) use run::Position;
use run::{member, set_context};
pub(crate) use settle::{Changes, settle};

/// The settings a store's fields were built with: (sequence key, window);
/// `None`: no context field.
type Settings = Option<(String, usize)>;

/// The window of `context` (0 without a field: no neighbours).
pub(crate) fn window(context: Option<&ContextField>) -> usize {
    ContextField::stored_window(context, usize::MAX)
}

fn settings(context: Option<&ContextField>) -> Settings {
    context.map(|c| (c.group_key.clone(), c.window))
}

/// The settings recorded in the file.
fn recorded(conn: &Connection) -> Result<Settings> {
    let (key, window): (Option<String>, i64) = conn.query_row(
        "SELECT group_key, window_size FROM memory_context_field WHERE k = 0",
        [],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok(key.map(|k| (k, usize::try_from(window).unwrap_or(1))))
}

/// The field for recorded settings (the weight does not matter here).
fn field(settings: &Settings) -> Option<ContextField> {
    settings.as_ref().map(|(key, window)| {
        ContextField::default()
            .with_group_key(key.clone())
            .with_window(*window)
    })
}

/// Makes the file's fields those of `configured` (run on open, after the
/// migrations): when the recorded settings differ, every row's sequence and
/// field is derived again and the store's postings rebuilt, in one
/// `IMMEDIATE` transaction that re-reads the record under the write lock.
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError); nothing changes.
pub(crate) fn sync(conn: &mut Connection, configured: Option<&ContextField>) -> Result<()> {
    let wanted = settings(configured);
    let rebuilt = unless_current(conn, &wanted, recorded, |tx| rebuild(tx, configured))?;
    if let Some(from) = rebuilt {
        tracing::info!(from = ?from, to = ?wanted, "sqlite memory store: context fields rebuilt");
    }
    Ok(())
}

/// Derives every field again with the recorded settings and rebuilds the
/// store's postings (after the rows were re-tokenised).
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn rebuild_recorded(conn: &Connection) -> Result<()> {
    let settings = recorded(conn)?;
    rebuild(conn, field(&settings).as_ref())
}

/// Every row's sequence from its metadata and field from its neighbours
/// under `context`, the store's postings rebuilt from the rows, the settings
/// recorded. Runs in the caller's transaction.
fn rebuild(conn: &Connection, context: Option<&ContextField>) -> Result<()> {
    assign_groups(conn, context)?;
    let window = window(context);
    let groups: Vec<String> = conn
        .prepare("SELECT DISTINCT grp FROM memory_items WHERE grp IS NOT NULL")?
        .query_map([], |r| r.get(0))?
        .collect::<std::result::Result<_, _>>()?;
    conn.execute(
        "UPDATE memory_items SET context_terms = '' WHERE grp IS NULL AND context_terms <> ''",
        [],
    )?;
    for grp in groups {
        let members: Vec<RunMember<i64, SpaceJoined>> = conn
            .prepare_cached(
                "SELECT pk, terms, context_terms FROM memory_items WHERE grp = ?1 \
                 ORDER BY created_secs, created_nanos, id",
            )?
            .query_map([grp], |r| Ok(member((r.get(0)?, r.get(1)?, r.get(2)?))))?
            .collect::<std::result::Result<_, _>>()?;
        for u in changed(&members, 0..members.len(), window) {
            if let Some(m) = members.get(u.at) {
                set_context(conn, m.doc, &u.terms.0)?;
            }
        }
    }
    crate::impact::clear_postings(conn, "scope = ?1", STORE_SCOPE)?;
    in_batches(
        conn,
        "SELECT pk, terms, grp IS NOT NULL, context_terms FROM memory_items \
         WHERE pk > ?1 ORDER BY pk LIMIT ?2",
        BATCH,
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        |rows: Vec<(i64, String, bool, String)>| {
            let docs: Vec<FieldDoc<'_>> = rows
                .iter()
                .map(|(pk, terms, grouped, context)| FieldDoc {
                    doc: *pk,
                    terms,
                    context: grouped.then_some(context.as_str()),
                })
                .collect();
            impact::add_fields(conn, STORE_SCOPE, &docs, 0)
        },
    )?;
    let (key, window) = match settings(context) {
        Some((key, window)) => (Some(key), i64::try_from(window).unwrap_or(i64::MAX)),
        None => (None, 0),
    };
    conn.execute(
        "UPDATE memory_context_field SET group_key = ?1, window_size = ?2 WHERE k = 0",
        params![key, window],
    )?;
    Ok(())
}

/// Sets every row's `grp` from its metadata (NULL everywhere without a field).
fn assign_groups(conn: &Connection, context: Option<&ContextField>) -> Result<()> {
    let Some(context) = context else {
        conn.execute(
            "UPDATE memory_items SET grp = NULL WHERE grp IS NOT NULL",
            [],
        )?;
        return Ok(());
    };
    let mut update = conn.prepare_cached("UPDATE memory_items SET grp = ?2 WHERE pk = ?1")?;
    in_batches(
        conn,
        "SELECT pk, metadata, grp FROM memory_items WHERE pk > ?1 ORDER BY pk LIMIT ?2",
        BATCH,
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        |rows: Vec<(i64, String, Option<String>)>| {
            for (pk, metadata, old) in rows {
                let new = stored_group(context, &metadata)?;
                if new != old {
                    update.execute(params![pk, new])?;
                }
            }
            Ok(())
        },
    )
}

/// Problems of the store's fields and postings: every row's field must be
/// its neighbours' terms under `window` (0: no field), and the postings
/// those of the rows with their fields ([`impact::check_fields`]).
///
/// # Errors
/// [`MemoryError::Storage`](agcore_memory::MemoryError).
pub(crate) fn check(conn: &Connection, window: usize) -> Result<Vec<String>> {
    type Row = (i64, String, Option<String>, String, String);
    let rows: Vec<Row> = conn
        .prepare(
            "SELECT pk, terms, grp, context_terms, id FROM memory_items \
             ORDER BY grp, created_secs, created_nanos, id",
        )?
        .query_map([], |r| Row::try_from(r))?
        .collect::<std::result::Result<_, _>>()?;
    let mut problems = Vec::new();
    for run in rows.chunk_by(|a, b| a.2 == b.2) {
        let members: Vec<RunMember<i64, SpaceJoined>> = run
            .iter()
            .map(|(pk, terms, _, context, _)| member((*pk, terms.clone(), context.clone())))
            .collect();
        // Rows in no sequence have empty fields: a window of 0.
        let grouped = run.first().is_some_and(|r| r.2.is_some());
        for u in changed(&members, 0..members.len(), if grouped { window } else { 0 }) {
            if let Some((.., id)) = run.get(u.at) {
                problems.push(format!(
                    "context field of `{id}` differs from its neighbours"
                ));
            }
        }
    }
    let docs: Vec<FieldDoc<'_>> = rows
        .iter()
        .map(|(pk, terms, grp, context, _)| FieldDoc {
            doc: *pk,
            terms,
            context: grp.is_some().then_some(context.as_str()),
        })
        .collect();
    problems.extend(impact::check_fields(conn, STORE_SCOPE, &docs, 0)?);
    Ok(problems)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_names_each_field_that_differs_from_its_neighbours() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        for (id, grp, secs, terms, context) in [
            ("a", Some("s"), 1, "one", "two"),
            ("b", Some("s"), 2, "two", "one three"),
            ("c", Some("s"), 3, "three", "one"),
            ("d", None, 4, "four", ""),
            ("e", None, 5, "five", "four"),
        ] {
            conn.execute(
                "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, \
                 terms, grp, context_terms) VALUES (?1, '', 'null', ?2, 0, ?3, ?4, ?5)",
                params![id, secs, terms, grp, context],
            )
            .unwrap();
        }
        let fields: Vec<String> = check(&conn, 1)
            .unwrap()
            .into_iter()
            .filter(|p| p.starts_with("context field"))
            .collect();
        assert_eq!(
            fields,
            [
                "context field of `e` differs from its neighbours",
                "context field of `c` differs from its neighbours",
            ]
        );
    }
}
