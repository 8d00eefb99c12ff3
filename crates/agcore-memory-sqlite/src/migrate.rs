//! One migration runner for the whole database: a schema-version table
//! (`agcore_schema`, one row per component) and each component's steps.
//!
//! Components, migrated in this order on every open:
//! - `bm25`: the impact-ordered BM25 index tables shared by the others
//!   ([`crate::impact`]), keyed by scope (the store is scope 0);
//! - `long_term`: long-term memory ([`crate::long_term`]);
//! - `store`: the [`MemoryStore`](agcore_memory::MemoryStore) items
//!   ([`crate::store`]).
//!
//! After the schema, each indexed component whose recorded analyzer is not
//! this library's is re-indexed ([`crate::analysis`]).
//!
//! A component at version 0 gets its latest layout at once; an older one runs
//! its upgrade steps, one `IMMEDIATE` transaction per step, re-reading the
//! version under the write lock (another process may have migrated
//! meanwhile). A component newer than this library is an error naming it:
//! nothing is downgraded.
//!
//! Files written before `agcore_schema` existed kept one schema per file with
//! its version in `PRAGMA user_version`; they are adopted on first open (the
//! store or long-term tables found tell which) and `user_version` is set to
//! [`ADOPTED_USER_VERSION`], which every earlier release refuses as newer
//! than itself, so old code never writes into the new layout.

use rusqlite::{Connection, OptionalExtension, Transaction, TransactionBehavior, params};

use crate::component::{Component, has_table};
use crate::error::{Result, storage};
use agcore_memory::schema::{step_targets, still_due};

/// `PRAGMA user_version` of a database managed through `agcore_schema`.
pub(crate) const ADOPTED_USER_VERSION: i64 = 100;

/// Version 2 keys blocks by exact document length (version 1: `len >> 3`);
/// version 3 adds the context-field statistics.
const BM25: Component = Component {
    name: "bm25",
    latest: 3,
    create: |tx| crate::impact::create_tables(tx),
    upgrade: |tx, target| match target {
        2 => crate::impact::split_by_length(tx),
        3 => crate::impact::add_context_columns(tx),
        other => Err(storage(format!(
            "bm25 index: no upgrade to version {other}"
        ))),
    },
};

/// Every component, in migration order.
pub(crate) const COMPONENTS: [&Component; 3] = [
    &BM25,
    &crate::long_term::schema::COMPONENT,
    &crate::store::schema::COMPONENT,
];

const SCHEMA_TABLE: &str = "
CREATE TABLE IF NOT EXISTS agcore_schema (
    component   TEXT PRIMARY KEY,
    version     INTEGER NOT NULL,
    migrated_at TEXT NOT NULL
);";

/// The version of `component`, 0 when absent.
pub(crate) fn version(conn: &Connection, component: &str) -> Result<i64> {
    if !has_table(conn, "agcore_schema")? {
        return Ok(0);
    }
    Ok(conn
        .query_row(
            "SELECT version FROM agcore_schema WHERE component = ?1",
            [component],
            |r| r.get(0),
        )
        .optional()?
        .unwrap_or(0))
}

fn set_version(tx: &Transaction<'_>, component: &str, version: i64) -> Result<()> {
    tx.execute(
        "INSERT INTO agcore_schema (component, version, migrated_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (component) DO UPDATE SET version = excluded.version, \
         migrated_at = excluded.migrated_at",
        params![component, version, chrono::Utc::now().to_rfc3339()],
    )?;
    Ok(())
}

/// Every component and its version (absent ones omitted), for reports.
pub(crate) fn versions(conn: &Connection) -> Result<Vec<(String, i64)>> {
    if !has_table(conn, "agcore_schema")? {
        return Ok(Vec::new());
    }
    Ok(conn
        .prepare("SELECT component, version FROM agcore_schema ORDER BY component")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<std::result::Result<_, _>>()?)
}

/// Brings every component to its latest version.
///
/// # Errors
/// A storage error when a step fails (it is rolled back; earlier steps stay),
/// when a component is newer than this library, or when the file holds a
/// layout this library does not know.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    adopt(conn)?;
    for component in COMPONENTS {
        let (name, latest) = (component.name, component.latest);
        let current = version(conn, name)?;
        for target in step_targets("sqlite", name, current, latest)? {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let now = version(&tx, name)?;
            if !still_due("sqlite", name, now, target, latest)? {
                continue;
            }
            if now == 0 {
                (component.create)(&tx)?;
            } else {
                (component.upgrade)(&tx, target)?;
            }
            set_version(&tx, name, target)?;
            tx.commit()?;
            tracing::debug!(component = name, version = target, "sqlite schema migrated");
        }
    }
    crate::analysis::sync(conn)
}

fn newer(component: &str, found: i64, latest: i64) -> crate::error::SqliteError {
    agcore_memory::schema::newer_schema("sqlite", component, found, latest).into()
}

/// Creates `agcore_schema` and records the components a file written before
/// it holds (their version from `user_version`).
fn adopt(conn: &mut Connection) -> Result<()> {
    if has_table(conn, "agcore_schema")? {
        return Ok(());
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if has_table(&tx, "agcore_schema")? {
        return Ok(());
    }
    let user_version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let store = has_table(&tx, "memory_items")?;
    let long_term = has_table(&tx, "memory")?;
    let bm25 = has_table(&tx, "bm25_blocks")?;
    let mut found: Vec<(&str, i64)> = Vec::new();
    match (store, long_term) {
        (true, true) => {
            return Err(storage(
                "sqlite: unknown layout (both `memory_items` and `memory` without `agcore_schema`)",
            ));
        }
        (true, false) => {
            let latest = crate::store::schema::COMPONENT.latest;
            if user_version > latest {
                return Err(newer("store", user_version, latest));
            }
            found.push(("store", user_version.max(1)));
        }
        (false, true) => {
            // Version 1 databases (the original layout) have no user_version.
            let latest = crate::long_term::schema::LEGACY_LATEST;
            if user_version > latest {
                return Err(newer("long_term", user_version, latest));
            }
            found.push(("long_term", user_version.max(1)));
        }
        (false, false) if user_version != 0 => {
            return Err(storage(format!(
                "sqlite: this database holds another schema (user_version {user_version}, \
                 no agcore tables)"
            )));
        }
        (false, false) => {}
    }
    if bm25 {
        found.push(("bm25", 1));
    }
    tx.execute_batch(SCHEMA_TABLE)?;
    for (component, version) in found {
        set_version(&tx, component, version)?;
    }
    tx.pragma_update(None, "user_version", ADOPTED_USER_VERSION)?;
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrates_once_and_is_idempotent() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let got = versions(&conn).unwrap();
        let want: Vec<(String, i64)> = {
            let mut v: Vec<(String, i64)> = COMPONENTS
                .iter()
                .map(|c| (c.name.to_owned(), c.latest))
                .collect();
            v.sort();
            v
        };
        assert_eq!(got, want);
        let uv: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(uv, ADOPTED_USER_VERSION);
    }

    #[test]
    fn refuses_a_newer_component() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.execute(
            "UPDATE agcore_schema SET version = version + 1 WHERE component = 'store'",
            [],
        )
        .unwrap();
        let err = migrate(&mut conn).unwrap_err().to_string();
        assert!(err.contains("`store` schema is version 7"), "{err}");
    }

    #[test]
    fn refuses_an_unknown_versioned_schema() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE other (x); PRAGMA user_version = 7;")
            .unwrap();
        let err = migrate(&mut conn).unwrap_err().to_string();
        assert!(err.contains("another schema"), "{err}");
    }

    #[test]
    fn an_unrelated_unversioned_database_gains_the_components() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE app_users (id INTEGER PRIMARY KEY);")
            .unwrap();
        migrate(&mut conn).unwrap();
        assert!(has_table(&conn, "app_users").unwrap());
        assert!(has_table(&conn, "memory_items").unwrap());
        assert!(has_table(&conn, "memory").unwrap());
    }
}
