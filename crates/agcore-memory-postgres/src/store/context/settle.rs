//! Keeping the context fields current inside a write transaction: after a
//! step (an upsert batch, a deletion, an eviction) has changed rows, the
//! rows it wrote are indexed with their fields and every row whose
//! neighbours changed gets its field (and postings) again.
//!
//! Which rows can change: a row's field is its `window` neighbours on each
//! side, so it changes only when a row appears, leaves or changes within
//! that window — and then, in the final order, the row is within `window`
//! of that place. So the neighbours of every old and new place of the
//! changed rows, looked up after the step's row writes, are all the rows
//! whose field may differ; each is compared with its stored field.

use std::collections::{BTreeMap, HashMap, HashSet};

use agcore_search::collection::field_postings;
use agcore_search::contextual::upkeep::field_from;
use deadpool_postgres::Transaction;

use super::neighbours::{Found, Position, Target, targets};
use crate::error::Result;
use crate::store::stats::{self, Delta};

/// A row the step wrote (new, or replaced with its postings deleted), to be
/// indexed from scratch.
#[derive(Debug)]
pub(crate) struct Fresh {
    pub(crate) doc: i64,
    /// Its own length in terms.
    pub(crate) len: i32,
    /// Its own terms and their frequencies.
    pub(crate) terms: BTreeMap<String, i32>,
}

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
    let writes = Writes::plan(&found, &fresh, &mut delta);
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
    /// What the `fresh` rows and the `found` targets need written; the
    /// fields' change of length is added to `delta`.
    fn plan(found: &Found, fresh: &[Fresh], delta: &mut Delta) -> Self {
        let Found {
            targets: found,
            stored,
        } = found;
        let fresh_set: HashSet<i64> = fresh.iter().map(|f| f.doc).collect();
        let fresh_terms: HashMap<i64, &BTreeMap<String, i32>> =
            fresh.iter().map(|f| (f.doc, &f.terms)).collect();
        let empty = BTreeMap::new();
        let own_of = |doc: i64| {
            fresh_terms
                .get(&doc)
                .copied()
                .or_else(|| stored.own.get(&doc))
                .unwrap_or(&empty)
        };
        let field = |t: &Target| -> (BTreeMap<String, i32>, i32) {
            let (terms, len) = field_from(
                t.neighbours
                    .iter()
                    .map(|&(doc, len)| (own_of(doc), i64::from(len))),
            );
            (terms, i32::try_from(len).unwrap_or(i32::MAX))
        };
        let mut out = Self::default();
        for f in fresh {
            let (terms, clen) = found.get(&f.doc).map(&field).unwrap_or_default();
            out.rows.add(f.doc, f.len, &f.terms, &terms, clen);
            delta.context_len += i64::from(clen);
            if clen != 0 {
                out.ctx_docs.push(f.doc);
                out.ctx_lens.push(clen);
            }
        }
        for (&doc, target) in found.iter().filter(|(d, _)| !fresh_set.contains(*d)) {
            let (terms, clen) = field(target);
            let old = stored.context.get(&doc).unwrap_or(&empty);
            if clen == target.context_len && terms == *old {
                continue;
            }
            out.rows.add(doc, target.len, own_of(doc), &terms, clen);
            out.rewritten.push(doc);
            delta.context_len += i64::from(clen) - i64::from(target.context_len);
            if clen != target.context_len {
                out.ctx_docs.push(doc);
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
