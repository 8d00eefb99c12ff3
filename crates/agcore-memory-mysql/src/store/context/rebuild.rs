//! Deriving every sequence and field again (settings changed, or the
//! `terms` were re-indexed), in one transaction under the migration lock:
//! memberships from each item's metadata, then each sequence's fields from
//! its members in list order (sorted here: a server-side sort of the
//! members' rows wrote an on-disk temporary table).

use agcore_memory::MemoryItem;
use agcore_memory::retriever::ContextField;
use agcore_search::contextual::refield::Refields;
use mysql_async::prelude::Queryable;
use mysql_async::{Conn, Row, Transaction, TxOpts, Value};

use super::rows::{Membership, insert_empty};
use super::settle::{MEMBER_COLUMNS, member, write};
use crate::error::Result;
use crate::row::take;

/// Items read per batch.
const BATCH: i64 = 1_000;

/// Replaces every membership and field by those `configured` derives, and
/// records `wanted` (its settings).
///
/// # Errors
/// [`crate::MysqlError`] from the server, or stored metadata that is not
/// JSON; nothing changes then.
pub(super) async fn rebuild(
    conn: &mut Conn,
    configured: Option<&ContextField>,
    wanted: &str,
) -> Result<()> {
    let mut tx = conn.start_transaction(TxOpts::default()).await?;
    tx.query_drop("DELETE FROM agcore_item_context").await?;
    tx.query_drop("UPDATE agcore_context_stats SET grouped = 0, context_len = 0")
        .await?;
    if let Some(context) = configured {
        let grouped = enrol_members(&mut tx, context).await?;
        let context_len = fill_fields(&mut tx, context).await?;
        tx.exec_drop(
            "UPDATE agcore_context_stats SET grouped = ?, context_len = ? WHERE shard = 0",
            (grouped, context_len),
        )
        .await?;
    }
    tx.exec_drop(
        "INSERT INTO agcore_store_meta (name, value) VALUES (?, ?)
         ON DUPLICATE KEY UPDATE value = VALUES(value)",
        (super::META_KEY, wanted),
    )
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Puts every item of a sequence into `agcore_item_context` with an empty
/// context field, in batches by `doc`; returns how many joined.
async fn enrol_members(tx: &mut Transaction<'_>, context: &ContextField) -> Result<i64> {
    let mut grouped = 0_i64;
    let mut after = i64::MIN;
    loop {
        let rows: Vec<Row> = tx
            .exec(
                "SELECT doc, id, metadata, created_s, created_ns FROM agcore_items
                 WHERE doc > ? ORDER BY doc LIMIT ?",
                (after, BATCH),
            )
            .await?;
        let Some(last) = rows.len().checked_sub(1) else {
            break;
        };
        let mut joining: Vec<Membership> = Vec::new();
        for (i, mut row) in rows.into_iter().enumerate() {
            let doc: i64 = take(&mut row, 0)?;
            if i == last {
                after = doc;
            }
            let metadata: String = take(&mut row, 2)?;
            let item = MemoryItem::new("", "").with_metadata(serde_json::from_str(&metadata)?);
            if let Some(grp) = super::group_of(context, &item) {
                joining.push((
                    doc,
                    grp,
                    take(&mut row, 3)?,
                    take(&mut row, 4)?,
                    take(&mut row, 1)?,
                ));
            }
        }
        insert_empty(tx, &joining).await?;
        grouped += i64::try_from(joining.len()).unwrap_or(i64::MAX);
    }
    Ok(grouped)
}

/// Computes every sequence's context fields from its members; returns the
/// summed context length.
async fn fill_fields(tx: &mut Transaction<'_>, context: &ContextField) -> Result<i64> {
    let mut step = Refields::new(
        ContextField::stored_window(Some(context), super::MAX_WINDOW),
        [],
    );
    let groups: Vec<Vec<u8>> = tx
        .query("SELECT DISTINCT grp FROM agcore_item_context")
        .await?;
    let mut context_len = 0_i64;
    for grp in groups {
        // No `ORDER BY`: sorting the join's rows, `LONGTEXT` columns
        // included, made the server write an on-disk temporary table.
        let rows: Vec<Row> = tx
            .exec(
                format!("SELECT {MEMBER_COLUMNS}TRUE"),
                (Value::from(grp.as_slice()),),
            )
            .await?;
        let mut members = rows
            .into_iter()
            .map(|mut row| member(&mut row, 0))
            .collect::<Result<Vec<_>>>()?;
        members.sort_by(|a, b| a.doc.1.cmp(&b.doc.1));
        // The whole sequence is the changed span.
        let refields = step.run(&members, 0, 0);
        context_len += refields.iter().map(|r| r.delta).sum::<i64>();
        write(tx, &grp, &refields).await?;
    }
    Ok(context_len)
}
