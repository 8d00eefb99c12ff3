//! Bringing the fields of a write transaction's sequences up to date: for
//! each sequence it changed, the members from `2 · window` before its first
//! changed position to `2 · window` after its last are read in list order
//! (three index range reads on `(grp, created_s, created_ns, id)`), every
//! member within `window` of that span gets its field derived again
//! ([`fields::changed`]), and only changed fields are written.

use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Transaction, Value};

use super::fields::{self, Member};
use super::rows::{Changes, Position};
use crate::error::Result;
use crate::row::take;

/// The columns of a member read for deriving fields, in [`member`]'s order.
pub(super) const MEMBER: &str = "SELECT x.doc, i.terms, i.len, x.context_terms, x.context_len
     FROM agcore_item_context x JOIN agcore_items i ON i.doc = x.doc WHERE x.grp = ? AND ";

/// `(created_s, created_ns, id)` compared with a position (`op` `<` or `>`):
/// written out so the server reads a range of the sequence index.
fn beyond(op: &str) -> String {
    format!(
        "(x.created_s {op} ? OR (x.created_s = ? AND (x.created_ns {op} ? OR (x.created_ns = ? AND x.id {op} ?))))"
    )
}

fn position_params(p: &Position) -> [Value; 5] {
    [
        Value::Int(p.0),
        Value::Int(p.0),
        Value::Int(p.1),
        Value::Int(p.1),
        Value::from(p.2.as_slice()),
    ]
}

fn member(mut row: Row) -> Result<Member> {
    Ok(Member {
        doc: take(&mut row, 0)?,
        terms: take(&mut row, 1)?,
        len: take(&mut row, 2)?,
        context_terms: take(&mut row, 3)?,
        context_len: take(&mut row, 4)?,
    })
}

pub(super) async fn read(
    tx: &mut Transaction<'_>,
    sql: String,
    params: Vec<Value>,
) -> Result<Vec<Member>> {
    let rows: Vec<Row> = tx.exec(sql, Params::Positional(params)).await?;
    rows.into_iter().map(member).collect()
}

/// Derives again the fields of the members around `positions` in `grp`.
async fn settle_group(
    tx: &mut Transaction<'_>,
    grp: &[u8],
    positions: &[Position],
    window: usize,
) -> Result<i64> {
    let (Some(lo), Some(hi)) = (positions.iter().min(), positions.iter().max()) else {
        return Ok(0);
    };
    let margin = Value::Int(i64::try_from(window.saturating_mul(2)).unwrap_or(i64::MAX));
    let g = Value::from(grp);
    let mut params = vec![g.clone()];
    params.extend(position_params(lo));
    params.push(margin.clone());
    let mut before = read(
        tx,
        format!(
            "{MEMBER}{} ORDER BY x.created_s DESC, x.created_ns DESC, x.id DESC LIMIT ?",
            beyond("<")
        ),
        params,
    )
    .await?;
    before.reverse();
    let mut params = vec![g.clone()];
    params.extend(position_params(lo));
    params.extend(position_params(hi));
    let middle = read(
        tx,
        format!(
            "{MEMBER}NOT {} AND NOT {} ORDER BY x.created_s, x.created_ns, x.id",
            beyond("<"),
            beyond(">")
        ),
        params,
    )
    .await?;
    let mut params = vec![g];
    params.extend(position_params(hi));
    params.push(margin);
    let after = read(
        tx,
        format!(
            "{MEMBER}{} ORDER BY x.created_s, x.created_ns, x.id LIMIT ?",
            beyond(">")
        ),
        params,
    )
    .await?;
    let start = before.len().saturating_sub(window);
    let end = before.len() + middle.len() + after.len().min(window);
    let mut members = before;
    members.extend(middle);
    members.extend(after);
    let updates = fields::changed(&members, start..end, window);
    let delta = updates.iter().map(|u| u.delta).sum();
    if !updates.is_empty() {
        tx.exec_batch(
            "UPDATE agcore_item_context SET context_terms = ?, context_len = ? WHERE doc = ?",
            updates
                .into_iter()
                .map(|u| (u.context_terms, u.context_len, u.doc)),
        )
        .await?;
    }
    Ok(delta)
}

/// Derives again every field the write changed (members within `window`
/// of a position in `changes`) and adds the changes to the statistics row
/// `shard` of `agcore_context_stats`.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn settle(
    tx: &mut Transaction<'_>,
    changes: Changes,
    window: usize,
    shard: i16,
) -> Result<()> {
    if changes.is_empty() {
        return Ok(());
    }
    let mut context_len = changes.context_len;
    for (grp, positions) in &changes.at {
        context_len += settle_group(tx, grp, positions, window).await?;
    }
    if changes.grouped != 0 || context_len != 0 {
        tx.exec_drop(
            "UPDATE agcore_context_stats SET grouped = grouped + ?, context_len = context_len + ?
             WHERE shard = ?",
            (changes.grouped, context_len, shard),
        )
        .await?;
    }
    Ok(())
}
