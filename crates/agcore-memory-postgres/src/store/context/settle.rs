//! Keeping the context fields current inside a write transaction: after a
//! step (an upsert batch, a deletion, an eviction) has changed rows, the
//! rows it wrote are indexed with their fields and every row whose
//! neighbours changed gets its field (and postings) again: the rows within
//! `window` of every old and new place of the changed rows, looked up after
//! the step's row writes (why those: [`agcore_search::contextual::settle`]);
//! [`Refields`] decides which to write.

use std::collections::BTreeMap;

use agcore_search::collection::field_postings;
use agcore_search::contextual::refield::{Refields, Written};
use deadpool_postgres::Transaction;

use super::neighbours::{Found, Position, targets};
use crate::error::Result;
use crate::store::stats::{self, Delta};

/// A row the step wrote (new, or replaced with its postings deleted), to be
/// indexed from scratch: its own terms with their frequencies and length.
pub(crate) type Fresh = Written<i64, BTreeMap<String, i32>>;

/// Posting rows to insert, column by column.
#[derive(Default)]
struct Rows {
    terms: Vec<String>,
    docs: Vec<i64>,
    tfs: Vec<i32>,
    lens: Vec<i32>,
    ctfs: Vec<i32>,
    clens: Vec<i32>,
}

impl Rows {
    /// Adds the postings of `doc`: the union of its own terms and its field
    /// ([`field_postings`]).
    fn add(
        &mut self,
        doc: i64,
        len: i32,
        own: &BTreeMap<String, i32>,
        context: &BTreeMap<String, i32>,
        clen: i32,
    ) {
        for (term, (tf, ctf)) in field_postings(own, context) {
            self.terms.push(term.to_owned());
            self.docs.push(doc);
            self.tfs.push(tf);
            self.lens.push(len);
            self.ctfs.push(ctf);
            self.clens.push(clen);
        }
    }
}

/// Indexes the `fresh` rows with their fields, refreshes the fields of the
/// rows around the `moved` places (see the module docs; `window` 0: no
/// fields) and adds `delta` — the step's change of the statistics, to which
/// the fields' change of length is added — to counter row `shard`. Run in
/// the step's transaction, after its row writes, with the moved sequences
/// locked; its writes go in one round trip, the counter row last.
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn settle(
    tx: &Transaction<'_>,
    window: usize,
    (mut moved, fresh): (Vec<Position>, Vec<Fresh>),
    shard: i16,
    mut delta: Delta,
) -> Result<()> {
    moved.sort_unstable();
    moved.dedup();
    let fresh_docs: Vec<i64> = fresh.iter().map(|f| f.doc).collect();
    // Fresh rows in a sequence have their places in `moved`.
    let found = targets(tx, &moved, &fresh_docs, window).await?;
    let writes = Writes::plan(found, fresh, window, &mut delta);
    writes.send(tx, shard, delta).await
}

/// The writes that settle a step: postings to insert, rows whose postings
/// are replaced, and new context lengths.
#[derive(Default)]
struct Writes {
    rows: Rows,
    /// Rows (not fresh) whose postings are deleted and written again.
    rewritten: Vec<i64>,
    ctx_docs: Vec<i64>,
    ctx_lens: Vec<i32>,
}

impl Writes {
    /// What the `fresh` rows and the `found` targets need written
    /// ([`Refields`] decides which targets change); the fields' change of
    /// length is added to `delta`.
    fn plan(found: Found, fresh: Vec<Fresh>, window: usize, delta: &mut Delta) -> Self {
        let mut step = Refields::new(window, fresh);
        let mut refields = step.neighbourhood(found);
        refields.extend(step.rest());
        let mut out = Self::default();
        for r in refields {
            let len = i32::try_from(r.own_len).unwrap_or(i32::MAX);
            let clen = i32::try_from(r.len).unwrap_or(i32::MAX);
            out.rows.add(r.doc, len, &r.own, &r.field, clen);
            if r.old.is_some() {
                out.rewritten.push(r.doc);
            }
            delta.context_len += r.delta;
            if r.delta != 0 {
                out.ctx_docs.push(r.doc);
                out.ctx_lens.push(clen);
            }
        }
        out
    }

    /// Sends the writes and adds `delta` to counter row `shard`: prepared
    /// first, then pipelined in this order (one round trip).
    async fn send(self, tx: &Transaction<'_>, shard: i16, delta: Delta) -> Result<()> {
        let Self {
            rows,
            rewritten,
            ctx_docs,
            ctx_lens,
        } = self;
        let delete = tx
            .prepare_cached("DELETE FROM agcore_postings WHERE doc = ANY($1)")
            .await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO agcore_postings (term, doc, tf, len, ctf, clen)
             SELECT * FROM unnest($1::text[], $2::int8[], $3::int4[], $4::int4[], $5::int4[], $6::int4[])",
            )
            .await?;
        let lengths = tx
            .prepare_cached(
                "UPDATE agcore_items AS i SET context_len = u.len
             FROM unnest($1::int8[], $2::int4[]) AS u(doc, len) WHERE i.doc = u.doc",
            )
            .await?;
        let counters = stats::statement(tx).await?;
        tokio::try_join!(
            async {
                if rewritten.is_empty() {
                    return Ok(0);
                }
                tx.execute(&delete, &[&rewritten]).await
            },
            async {
                if rows.terms.is_empty() {
                    return Ok(0);
                }
                tx.execute(
                    &insert,
                    &[
                        &rows.terms,
                        &rows.docs,
                        &rows.tfs,
                        &rows.lens,
                        &rows.ctfs,
                        &rows.clens,
                    ],
                )
                .await
            },
            async {
                if ctx_docs.is_empty() {
                    return Ok(0);
                }
                tx.execute(&lengths, &[&ctx_docs, &ctx_lens]).await
            },
            stats::apply(tx, &counters, shard, delta),
        )?;
        Ok(())
    }
}
