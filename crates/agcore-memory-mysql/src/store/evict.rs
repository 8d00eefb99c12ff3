//! Eviction in a write transaction: TTL (items created before now − ttl)
//! and capacity (the oldest items beyond `max_items`), deleted like any
//! other item ([`delete_selected`]).

use agcore_memory::EvictionPolicy;
use agcore_memory::sql_store::ttl_cutoff;
use chrono::Utc;
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Transaction, Value};

use super::context::Changes;
use super::stats::ItemDelta;
use super::write::delete_selected;
use crate::error::{Result, storage};
use crate::row::split_time;

/// Applies the eviction policy in `tx` (taking evicted items out of their
/// sequences when `changes` is given); returns the items removed.
pub(crate) async fn evict(
    tx: &mut Transaction<'_>,
    policy: &EvictionPolicy,
    changes: Option<&mut Changes>,
    delta: &mut ItemDelta,
) -> Result<usize> {
    let removed = match policy {
        EvictionPolicy::None => 0,
        EvictionPolicy::Ttl { ttl_secs } => {
            let (s, ns) = split_time(ttl_cutoff(*ttl_secs, Utc::now()));
            delete_selected(
                tx,
                "SELECT doc, len, id, terms FROM agcore_items
                 WHERE created_s < ? OR (created_s = ? AND created_ns <= ?) FOR UPDATE",
                Params::Positional(vec![
                    Value::Int(s),
                    Value::Int(s),
                    Value::Int(i64::from(ns)),
                ]),
                changes,
                delta,
            )
            .await?
        }
        EvictionPolicy::Capacity { max_items } => {
            let max = i64::try_from(*max_items).unwrap_or(i64::MAX);
            let count: i64 = tx
                .query_first("SELECT COUNT(*) FROM agcore_items")
                .await?
                .unwrap_or(0);
            let excess = count - max;
            if excess <= 0 {
                0
            } else {
                delete_selected(
                    tx,
                    "SELECT doc, len, id, terms FROM agcore_items ORDER BY created_s, created_ns, id LIMIT ? FOR UPDATE",
                    Params::Positional(vec![Value::Int(excess)]),
                    changes,
                    delta,
                )
                .await?
            }
        }
        other => {
            return Err(storage(format!(
                "eviction policy {other:?} is not supported by the MySQL store"
            )));
        }
    };
    if removed > 0 {
        tracing::debug!(removed, "mysql memory store: evicted items");
    }
    Ok(removed)
}
