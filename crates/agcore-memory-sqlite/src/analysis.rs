//! The analyzer each index was built with, and re-indexing when it changes.
//!
//! `agcore_analyzer (component, analyzer, indexed_at)` records, for the
//! `store` and `long_term` components, the
//! [`ANALYZER_ID`](agcore_search::ANALYZER_ID) whose
//! [`index_terms`](agcore_search::index_terms) produced their
//! `terms` columns and impact-ordered postings. Files written before it
//! existed were indexed with plain keywords
//! ([`KEYWORDS_ANALYZER_ID`](agcore_search::KEYWORDS_ANALYZER_ID));
//! the `store` version 3 and `long_term` version 5 steps re-index them. On
//! every open, a component whose recorded analyzer differs from this
//! library's is re-indexed the same way ([`sync`]): every row re-tokenised
//! from its text in batches of [`BATCH`], the component's postings rebuilt,
//! all in one `IMMEDIATE` transaction that re-reads the record under the
//! write lock, so concurrent openers re-index once and a crash leaves the
//! old index whole.

use std::collections::BTreeMap;

use agcore_search::ANALYZER_ID;
use rusqlite::{Connection, OptionalExtension, params};

use crate::component::unless_current;
use crate::error::Result;
use crate::impact::{BATCH, clear_postings};
use crate::keyset::in_batches;
use crate::long_term::rows::{SCOPE_TOKENS, index_terms as entry_terms, scope_id};
use crate::store::search::STORE_SCOPE;

const TABLE: &str = "CREATE TABLE IF NOT EXISTS agcore_analyzer (
    component  TEXT PRIMARY KEY,
    analyzer   TEXT NOT NULL,
    indexed_at TEXT NOT NULL
);";

/// Rebuilds one component's index in the caller's transaction.
type Rebuild = fn(&Connection) -> Result<()>;

/// The components with a full-text index, and how each is re-indexed.
const INDEXED: [(&str, Rebuild); 2] = [("store", reindex_store), ("long_term", reindex_long_term)];

/// The analyzer recorded for `component`; `None` when none is.
pub(crate) fn recorded(conn: &Connection, component: &str) -> Result<Option<String>> {
    if !crate::component::has_table(conn, "agcore_analyzer")? {
        return Ok(None);
    }
    Ok(conn
        .query_row(
            "SELECT analyzer FROM agcore_analyzer WHERE component = ?1",
            [component],
            |r| r.get(0),
        )
        .optional()?)
}

/// Records that `component` is indexed with [`ANALYZER_ID`].
pub(crate) fn record(conn: &Connection, component: &str) -> Result<()> {
    conn.execute_batch(TABLE)?;
    conn.execute(
        "INSERT INTO agcore_analyzer (component, analyzer, indexed_at) VALUES (?1, ?2, ?3) \
         ON CONFLICT (component) DO UPDATE SET analyzer = excluded.analyzer, \
         indexed_at = excluded.indexed_at",
        params![component, ANALYZER_ID, chrono::Utc::now().to_rfc3339()],
    )?;
    Ok(())
}

/// Re-indexes `component` with [`ANALYZER_ID`] and records it (a schema
/// upgrade step; runs in the caller's transaction).
pub(crate) fn reindex(conn: &Connection, component: &str) -> Result<()> {
    for (name, rebuild) in INDEXED {
        if name == component {
            rebuild(conn)?;
        }
    }
    record(conn, component)
}

/// Re-indexes every component whose recorded analyzer is not
/// [`ANALYZER_ID`] (run after the schema migration, on every open).
///
/// # Errors
/// A storage error; the component's transaction is rolled back.
pub(crate) fn sync(conn: &mut Connection) -> Result<()> {
    for (component, _) in INDEXED {
        let wanted = Some(ANALYZER_ID.to_owned());
        let read = |c: &Connection| recorded(c, component);
        let reindexed = unless_current(conn, &wanted, read, |tx| {
            reindex(tx, component)?;
            if component == "store" {
                // The context fields hold the neighbours' terms: derived again.
                crate::store::context::rebuild_recorded(tx)?;
            }
            Ok(())
        })?;
        if let Some(from) = reindexed {
            tracing::info!(component, from = ?from, to = ANALYZER_ID, "sqlite: re-indexed");
        }
    }
    Ok(())
}

/// The store (scope 0): `terms` from `content`, the postings rebuilt.
fn reindex_store(conn: &Connection) -> Result<()> {
    clear_postings(conn, "scope = ?1", STORE_SCOPE)?;
    in_batches(
        conn,
        "SELECT pk, content FROM memory_items WHERE pk > ?1 ORDER BY pk LIMIT ?2",
        BATCH,
        |r| Ok((r.get(0)?, r.get(1)?)),
        |rows: Vec<(i64, String)>| {
            let terms: Vec<(i64, String)> = rows
                .iter()
                .map(|(pk, content)| (*pk, crate::store::query::index_terms(content)))
                .collect();
            let mut update =
                conn.prepare_cached("UPDATE memory_items SET terms = ?2 WHERE pk = ?1")?;
            for (pk, t) in &terms {
                update.execute(params![pk, t])?;
            }
            let docs: Vec<(i64, &str)> = terms.iter().map(|(pk, t)| (*pk, t.as_str())).collect();
            crate::impact::add_docs(conn, STORE_SCOPE, &docs, 0)
        },
    )
}

/// Long-term memory (every scope but the store's): `terms` from name,
/// content and description, the postings rebuilt scope by scope.
fn reindex_long_term(conn: &Connection) -> Result<()> {
    clear_postings(conn, "scope <> ?1", STORE_SCOPE)?;
    in_batches(
        conn,
        "SELECT id, agent_name, user_id, name || ' ' || content || ' ' || description \
         FROM memory WHERE id > ?1 ORDER BY id LIMIT ?2",
        BATCH,
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        |rows: Vec<(i64, String, String, String)>| {
            let terms: Vec<(i64, i64, String)> = rows
                .iter()
                .map(|(id, agent, user, text)| {
                    (*id, scope_id(agent, user), entry_terms(agent, user, text))
                })
                .collect();
            let mut update = conn.prepare_cached("UPDATE memory SET terms = ?2 WHERE id = ?1")?;
            let mut by_scope: BTreeMap<i64, Vec<(i64, &str)>> = BTreeMap::new();
            for (id, scope, t) in &terms {
                update.execute(params![id, t])?;
                by_scope.entry(*scope).or_default().push((*id, t.as_str()));
            }
            for (scope, docs) in by_scope {
                crate::impact::add_docs(conn, scope, &docs, SCOPE_TOKENS)?;
            }
            Ok(())
        },
    )
}
