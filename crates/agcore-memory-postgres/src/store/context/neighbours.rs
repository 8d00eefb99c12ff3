//! Rows' places in their sequences and their neighbours there, found
//! through `agcore_items_group (grp, created_s, created_ns, id)` (two index
//! range scans per place, one each way).

use std::collections::BTreeMap;

use agcore_search::contextual::refield::Neighbourhood;
use deadpool_postgres::Transaction;
use tokio_postgres::types::ToSql;

use crate::error::Result;

/// Where a row sits (or sat) in its sequence: the sequence (the
/// [`ContextField::group_of`](agcore_memory::retriever::ContextField::group_of)
/// text), then its creation time and id — the store's list order.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Position {
    pub(crate) grp: String,
    pub(crate) secs: i64,
    pub(crate) nanos: i32,
    pub(crate) id: String,
}

/// The members of sequence `{at}.grp` within `$w` places before and after
/// the place of `{at}` (`{at}` itself excluded, whether or not a row is
/// there), selecting `{cols}` of `agcore_items i`.
fn around(at: &str, cols: &str, w: &str) -> String {
    format!(
        "(SELECT {cols} FROM agcore_items i WHERE i.grp = {at}.grp \
           AND (i.created_s, i.created_ns, i.id) < ({at}.created_s, {at}.created_ns, {at}.id) \
           ORDER BY i.created_s DESC, i.created_ns DESC, i.id DESC LIMIT {w}) \
         UNION ALL \
         (SELECT {cols} FROM agcore_items i WHERE i.grp = {at}.grp \
           AND (i.created_s, i.created_ns, i.id) > ({at}.created_s, {at}.created_ns, {at}.id) \
           ORDER BY i.created_s, i.created_ns, i.id LIMIT {w})"
    )
}

/// What [`targets`] finds: the rows whose fields may have changed, by row
/// number, and the stored postings of them and of their neighbours (own
/// terms and fields).
pub(crate) type Found = Neighbourhood<i64, BTreeMap<String, i32>>;

/// The rows whose fields may have changed, with their neighbours: the rows
/// within `window` of each place in `moved` (where a row appeared, left or
/// changed; the rows in `fresh` left out), and the rows of `fresh` that are
/// in a sequence; with the postings stored for them and their neighbours
/// (the rows of `fresh` have none: written afresh). One statement, run
/// after the step's row writes.
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn targets(
    tx: &Transaction<'_>,
    moved: &[Position],
    fresh: &[i64],
    window: usize,
) -> Result<Found> {
    let mut out = Found::default();
    if window == 0 || moved.is_empty() {
        return Ok(out);
    }
    let w = i64::try_from(window).unwrap_or(i64::MAX);
    let grps: Vec<&str> = moved.iter().map(|p| p.grp.as_str()).collect();
    let secs: Vec<i64> = moved.iter().map(|p| p.secs).collect();
    let nanos: Vec<i32> = moved.iter().map(|p| p.nanos).collect();
    let ids: Vec<&str> = moved.iter().map(|p| p.id.as_str()).collect();
    let cols = "i.doc, i.grp, i.created_s, i.created_ns, i.id, i.len, i.context_len";
    // Rows of kind 0: (target, its length and field length, a neighbour and
    // its length); of kind 1: a stored posting (doc, term, tf, ctf). Every
    // step is an index lookup per row, whatever the plan's estimates (the
    // statement is prepared once per connection and may run on a generic
    // plan): the neighbours are `LIMIT`ed lateral scans, the postings a
    // lateral scan kept from being flattened into a join (`OFFSET 0`).
    let sql = format!(
        "WITH m AS (
             SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::text[])
                 AS m(grp, created_s, created_ns, id)
         ),
         t AS (
             SELECT DISTINCT n.* FROM m CROSS JOIN LATERAL ({near}) n
             WHERE NOT (n.doc = ANY($6::int8[]))
             UNION ALL
             SELECT {cols} FROM agcore_items i
             WHERE i.doc = ANY($6::int8[]) AND i.grp IS NOT NULL
         ),
         pairs AS MATERIALIZED (
             SELECT t.doc, t.len, t.context_len, nb.doc AS nb, nb.len AS nb_len
             FROM t LEFT JOIN LATERAL ({nb}) nb ON TRUE
         )
         SELECT 0, doc, len, context_len, nb, nb_len, NULL::text FROM pairs
         UNION ALL
         SELECT 1, p.doc, p.tf, p.ctf, NULL::int8, NULL::int4, p.term
         FROM (SELECT doc FROM pairs UNION SELECT nb FROM pairs WHERE nb IS NOT NULL) d
         CROSS JOIN LATERAL (
             SELECT p.doc, p.tf, p.ctf, p.term FROM agcore_postings p WHERE p.doc = d.doc OFFSET 0
         ) p
         WHERE NOT (d.doc = ANY($6::int8[]))",
        near = around("m", cols, "$5"),
        nb = around("t", "i.doc, i.len", "$5"),
    );
    let stmt = tx.prepare_cached(&sql).await?;
    // Planned once per connection: a custom plan per call took 0.3 ms of
    // planning for 0.05 ms of execution, and the server keeps choosing
    // custom plans here because it costs the generic plan for arrays of
    // unknown length (it is the same plan). Sent with the two settings in
    // one round trip; the setting is the transaction's default again after.
    let params: [&(dyn ToSql + Sync); 6] = [&grps, &secs, &nanos, &ids, &w, &fresh];
    let (_, rows, _) = tokio::try_join!(
        tx.batch_execute("SET LOCAL plan_cache_mode = force_generic_plan"),
        tx.query(&stmt, &params),
        tx.batch_execute("SET LOCAL plan_cache_mode TO DEFAULT"),
    )?;
    for row in &rows {
        read_row(row, &mut out)?;
    }
    Ok(out)
}

/// One row of [`targets`]' answer into `out`: kind 1 a stored posting, kind
/// 0 a target with one of its neighbours (or none).
fn read_row(row: &tokio_postgres::Row, out: &mut Found) -> Result<()> {
    let kind: i32 = row.try_get(0)?;
    let doc: i64 = row.try_get(1)?;
    if kind == 1 {
        let (tf, ctf, term): (i32, i32, String) =
            (row.try_get(2)?, row.try_get(3)?, row.try_get(6)?);
        if tf > 0 {
            out.own.entry(doc).or_default().insert(term.clone(), tf);
        }
        if ctf > 0 {
            out.fields.entry(doc).or_default().insert(term, ctf);
        }
        return Ok(());
    }
    let target = out.targets.entry(doc).or_default();
    target.len = i64::from(row.try_get::<_, i32>(2)?);
    target.context_len = i64::from(row.try_get::<_, i32>(3)?);
    let neighbour: Option<i64> = row.try_get(4)?;
    if let Some(neighbour) = neighbour {
        let len: i32 = row.try_get(5)?;
        target.neighbours.push((neighbour, i64::from(len)));
    }
    Ok(())
}
