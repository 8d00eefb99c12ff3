//! Upserting items in the writer's transaction: multi-row inserts (items
//! encoded ahead by helper threads, see [`super::encode`]), rewrites of ids
//! already stored or repeated, and the impact-ordered index and context
//! fields kept in step ([`crate::store::context::settle`]).

use crate::error::Result;

use rusqlite::{Connection, OptionalExtension, ToSql, params};

use super::encode::{Encoded, with_encoder};
use crate::multirow::{self, MultiRow};
use crate::store::context::{self, Changes, Position};
use crate::store::query::time_parts;
use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_memory::sql_store::Versions;

/// The item insert: an id already stored is left alone; returns the row
/// number and id of each row created.
static INSERT_ITEMS: MultiRow = MultiRow::new(
    "INSERT INTO memory_items (id, content, metadata, created_secs, created_nanos, terms, grp)",
    7,
    1,
    "ON CONFLICT (id) DO NOTHING RETURNING pk, id",
);

/// A stored row before its rewrite: pk, terms, context field, sequence and
/// creation time.
type OldRow = (i64, String, String, Option<String>, i64, i64);

/// Upserts `items` in order (a later duplicate id wins) and keeps the
/// impact-ordered index and the context fields in step (rows whose terms,
/// sequence or time change are re-indexed, with their neighbours' fields);
/// returns their number.
///
/// Each id is inserted at its first position in `items` (many rows per
/// statement), skipping ids already stored; then every id still short of its last version (stored before, or
/// repeated in `items`) is rewritten to it, one `UPDATE` each.
pub(super) fn upsert(
    conn: &Connection,
    items: &[&MemoryItem],
    context: Option<&ContextField>,
    threads: usize,
) -> Result<usize> {
    if items.is_empty() {
        return Ok(0);
    }
    let versions = Versions::of(items.iter().map(|item| item.id.as_str()));
    let (encoded, created) = insert_new(conn, items, context, threads, &versions)?;
    // Every id at its last version: created rows are indexed (rewritten
    // first when a later version followed), stored rows rewritten and
    // re-indexed when their terms, sequence or time change.
    let mut changes = Changes::default();
    for (n, (item, enc)) in items.iter().zip(encoded).enumerate() {
        let Some(first) = versions.last_version(&item.id, n) else {
            continue;
        };
        match created.get(first).copied().flatten() {
            Some(pk) => {
                if first != n {
                    rewrite(conn, item, &enc)?;
                }
                let at = position(item, &enc);
                changes.write(pk, enc.terms, at, String::new());
            }
            None => rewrite_stored(conn, item, enc, &mut changes)?,
        }
    }
    context::settle(conn, context::window(context), changes)?;
    Ok(items.len())
}

/// Inserts each id at its first position (many rows per statement),
/// skipping ids already stored; returns every item encoded and, by first
/// position, the row number of each row created.
fn insert_new(
    conn: &Connection,
    items: &[&MemoryItem],
    context: Option<&ContextField>,
    threads: usize,
    versions: &Versions<'_>,
) -> Result<(Vec<Encoded>, Vec<Option<i64>>)> {
    let mut created: Vec<Option<i64>> = vec![None; items.len()];
    let encoded = with_encoder(items, context, threads, |encoder| {
        for range in multirow::chunks(items.len()) {
            encoder.take(range.end)?;
            let mut stmt = INSERT_ITEMS.prepare(conn, range.len())?;
            for (slot, n) in range.clone().enumerate() {
                let (Some(item), Some(enc)) = (items.get(n), encoder.done().get(n)) else {
                    continue;
                };
                let (secs, nanos) = time_parts(item.created_at);
                let row: [&dyn ToSql; 7] = [
                    &item.id,
                    &item.content,
                    &enc.metadata,
                    &secs,
                    &nanos,
                    &enc.terms,
                    &enc.group,
                ];
                multirow::bind_row(&mut stmt, slot, &row)?;
            }
            let mut rows = stmt.raw_query();
            while let Some(row) = rows.next()? {
                let pk: i64 = row.get(0)?;
                let id = row.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
                if let Some(slot) = versions.first(id).and_then(|first| created.get_mut(first)) {
                    *slot = Some(pk);
                }
            }
        }
        encoder.finish()
    })?;
    Ok((encoded, created))
}

/// Where `item` stands in its sequence (`None` outside one).
fn position(item: &MemoryItem, enc: &Encoded) -> Option<Position> {
    let (secs, nanos) = time_parts(item.created_at);
    enc.group.clone().map(|grp| Position {
        grp,
        secs,
        nanos,
        id: item.id.clone(),
    })
}

/// Rewrites the stored row of `item.id` to `item`, recording in `changes`
/// what the index and context fields must follow when its terms, sequence
/// or time change.
fn rewrite_stored(
    conn: &Connection,
    item: &MemoryItem,
    enc: Encoded,
    changes: &mut Changes,
) -> Result<()> {
    let old: Option<OldRow> = conn
        .prepare_cached(
            "SELECT pk, terms, context_terms, grp, created_secs, created_nanos \
             FROM memory_items WHERE id = ?1",
        )?
        .query_row([&item.id], |r| OldRow::try_from(r))
        .optional()?;
    rewrite(conn, item, &enc)?;
    let Some((pk, old_terms, old_context, old_group, old_secs, old_nanos)) = old else {
        return Ok(());
    };
    if old_terms == enc.terms
        && old_group == enc.group
        && (old_secs, old_nanos) == time_parts(item.created_at)
    {
        return Ok(());
    }
    let old_at = old_group.map(|grp| Position {
        grp,
        secs: old_secs,
        nanos: old_nanos,
        id: item.id.clone(),
    });
    changes.remove(pk, old_terms, old_context.clone(), old_at);
    let at = position(item, &enc);
    changes.write(pk, enc.terms, at, old_context);
    Ok(())
}

/// Overwrites the stored row of `item.id` with `item`.
fn rewrite(conn: &Connection, item: &MemoryItem, enc: &Encoded) -> Result<()> {
    let (secs, nanos) = time_parts(item.created_at);
    conn.prepare_cached(
        "UPDATE memory_items SET content = ?2, metadata = ?3, created_secs = ?4, \
         created_nanos = ?5, terms = ?6, grp = ?7 WHERE id = ?1",
    )?
    .execute(params![
        item.id,
        item.content,
        enc.metadata,
        secs,
        nanos,
        enc.terms,
        enc.group
    ])?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::{StoreWriter, WriteOp};
    use super::*;
    use crate::impact;
    use crate::store::search::STORE_SCOPE;
    use agcore_memory::EvictionConfig;

    #[test]
    fn a_large_batch_with_repeats_and_stored_ids_is_indexed_exactly() {
        let mut conn = Connection::open_in_memory().unwrap();
        crate::migrate::migrate(&mut conn).unwrap();
        let mut w = StoreWriter::new(EvictionConfig::none(), None);
        w.threads = 3;
        let stored: Vec<MemoryItem> = (0..300)
            .map(|n| MemoryItem::new(format!("k{n}"), format!("old words {}", n % 4)))
            .collect();
        w.apply_group(&mut conn, &[WriteOp::Upsert(stored.clone())])
            .unwrap();
        // Spans several statements; repeats ids of this batch and stored ones
        // (some with unchanged terms).
        let mut items: Vec<MemoryItem> = (0..4500)
            .map(|n| {
                let text = format!("word{} common 记忆系统 {}", n % 97, n % 5);
                MemoryItem::new(
                    format!("k{n}"),
                    if n % 50 == 0 {
                        "old words 0".into()
                    } else {
                        text
                    },
                )
            })
            .collect();
        items
            .extend((0..500).map(|n| MemoryItem::new(format!("k{}", n * 9), format!("later {n}"))));
        let (results, rows) = w
            .apply_group(&mut conn, &[WriteOp::Upsert(items.clone())])
            .unwrap();
        assert!(results.iter().all(Result::is_ok));
        assert_eq!(rows, 5000);
        let mut expected: std::collections::BTreeMap<String, String> =
            std::collections::BTreeMap::new();
        for item in stored.iter().chain(&items) {
            expected.insert(item.id.clone(), item.content.clone());
        }
        let stored_now: std::collections::BTreeMap<String, String> = conn
            .prepare("SELECT id, content FROM memory_items")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(stored_now, expected);
        let docs: Vec<(i64, String)> = conn
            .prepare("SELECT pk, terms FROM memory_items")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            impact::check(&conn, STORE_SCOPE, &docs, 0).unwrap(),
            Vec::<String>::new()
        );
    }
}
