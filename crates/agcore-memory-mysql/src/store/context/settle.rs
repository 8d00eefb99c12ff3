//! Bringing the fields of a write transaction's sequences up to date: for
//! each sequence it changed, the members from `2 · window` before its first
//! changed position to `2 · window` after its last are read in list order
//! (three index range reads on `(grp, created_s, created_ns, id)`, in one
//! statement), the members joining are placed among them, every member
//! within `window` of that span gets its field derived again and those
//! to write are chosen ([`agcore_search::contextual::refield`]), and the
//! rows of new members and the changed fields are written in one
//! statement; what each field held and now holds is recorded for the
//! document frequencies ([`WordChanges`]).

use agcore_search::contextual::refield::{Refield, Refields};
use agcore_search::contextual::upkeep::RunMember;
use agcore_search::doc_freq::{Field, WordChanges};
use mysql_async::prelude::Queryable;
use mysql_async::{Params, Row, Transaction, Value};

use super::rows::{Changes, Joining, Position};
use crate::error::Result;
use crate::row::take;

/// A member of a sequence as read for deriving fields: its row number and
/// position, its own `terms` words (` word ` each) and length, and its
/// stored field (`None`: a member joining, with no row yet).
pub(super) type Member = RunMember<(i64, Position), String>;

/// Rows per multi-row `INSERT`.
const CHUNK: usize = 500;

/// The columns of a member read for deriving fields, in [`member`]'s order
/// (after any leading columns it skips), and the tables they come from.
macro_rules! member_select {
    () => {
        "x.doc, i.terms, i.len, x.context_terms, x.context_len, \
         x.created_s, x.created_ns, x.id \
         FROM agcore_item_context x JOIN agcore_items i ON i.doc = x.doc"
    };
}

/// [`member_select!`] restricted to a sequence and a condition that follows.
pub(super) const MEMBER_COLUMNS: &str = concat!(member_select!(), " WHERE x.grp = ? AND ");

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

/// The member in `row`'s columns from `skip` on ([`MEMBER_COLUMNS`]).
pub(super) fn member(row: &mut Row, skip: usize) -> Result<Member> {
    let doc = take(row, skip)?;
    let own = take(row, skip + 1)?;
    let len = take(row, skip + 2)?;
    let stored = Some((take(row, skip + 3)?, take(row, skip + 4)?));
    let position = (
        take(row, skip + 5)?,
        take(row, skip + 6)?,
        take(row, skip + 7)?,
    );
    Ok(Member {
        doc: (doc, position),
        own,
        len,
        stored,
    })
}

/// The stored members around `lo..=hi`: up to `margin` before `lo`, all
/// from `lo` to `hi`, up to `margin` after `hi`, in no particular order
/// (the caller sorts them: an outer `ORDER BY` made the server sort the
/// union in a temporary table, 2.3× the statement's time); and how many
/// are before and after. The union holds only `(part, doc)` pairs, read
/// from the sequence index alone, and the members' rows are joined to it:
/// a union of the rows themselves, `LONGTEXT` columns included, was
/// materialised in an on-disk temporary table on every write.
async fn around(
    tx: &mut Transaction<'_>,
    grp: &[u8],
    (lo, hi): (&Position, &Position),
    margin: usize,
) -> Result<(Vec<Member>, usize, usize)> {
    let margin = Value::Int(i64::try_from(margin).unwrap_or(i64::MAX));
    let g = Value::from(grp);
    let mut params = vec![g.clone()];
    params.extend(position_params(lo));
    params.push(margin.clone());
    params.push(g.clone());
    params.extend(position_params(lo));
    params.extend(position_params(hi));
    params.push(g);
    params.extend(position_params(hi));
    params.push(margin);
    let docs = "x.doc FROM agcore_item_context x WHERE x.grp = ? AND";
    let sql = format!(
        "SELECT u.part, {members} JOIN \
         ((SELECT 0 AS part, {docs} {before} \
           ORDER BY x.created_s DESC, x.created_ns DESC, x.id DESC LIMIT ?) \
          UNION ALL (SELECT 1 AS part, {docs} NOT {before} AND NOT {after}) \
          UNION ALL (SELECT 2 AS part, {docs} {after} \
           ORDER BY x.created_s, x.created_ns, x.id LIMIT ?)) u ON u.doc = x.doc",
        members = member_select!(),
        before = beyond("<"),
        after = beyond(">"),
    );
    let rows: Vec<Row> = tx.exec(sql, Params::Positional(params)).await?;
    let (mut members, mut before, mut after) = (Vec::with_capacity(rows.len()), 0, 0);
    for mut row in rows {
        match take::<i64>(&mut row, 0)? {
            0 => before += 1,
            2 => after += 1,
            _ => {}
        }
        members.push(member(&mut row, 1)?);
    }
    Ok((members, before, after))
}

/// Writes the fields of `grp` in `refields`: rows of new members with
/// their fields, and the changed fields of stored ones, in one statement
/// per 500.
pub(super) async fn write(
    tx: &mut Transaction<'_>,
    grp: &[u8],
    refields: &[Refield<(i64, Position), String>],
) -> Result<()> {
    for chunk in refields.chunks(CHUNK) {
        let mut params = Vec::with_capacity(chunk.len() * 7);
        for r in chunk {
            let (doc, position) = &r.doc;
            params.extend([
                Value::Int(*doc),
                Value::from(grp),
                Value::Int(position.0),
                Value::Int(position.1),
                Value::from(position.2.as_slice()),
                Value::Int(r.len),
                Value::from(r.field.as_str()),
            ]);
        }
        tx.exec_drop(
            format!(
                "INSERT INTO agcore_item_context (doc, grp, created_s, created_ns, id, context_len, context_terms)
                 VALUES {} ON DUPLICATE KEY UPDATE
                 context_len = VALUES(context_len), context_terms = VALUES(context_terms)",
                vec!["(?, ?, ?, ?, ?, ?, ?)"; chunk.len()].join(", ")
            ),
            Params::Positional(params),
        )
        .await?;
    }
    Ok(())
}

/// Derives again the fields of the members around `positions` in `grp`,
/// its `joining` members placed among them ([`Refields::run`]); returns the
/// change of summed field lengths.
async fn settle_group(
    tx: &mut Transaction<'_>,
    grp: &[u8],
    positions: &[Position],
    joining: Vec<Joining>,
    (step, words): (&mut Refields<(i64, Position), String>, &mut WordChanges),
) -> Result<i64> {
    let (Some(lo), Some(hi)) = (positions.iter().min(), positions.iter().max()) else {
        return Ok(0);
    };
    let margin = step.window().saturating_mul(2);
    let (mut members, before, after) = around(tx, grp, (lo, hi), margin).await?;
    // Joining positions lie within `lo..=hi`: among the middle members.
    members.extend(joining.into_iter().map(|j| Member {
        doc: (j.doc, j.position),
        own: j.terms,
        len: j.len,
        stored: None,
    }));
    members.sort_by(|a, b| a.doc.1.cmp(&b.doc.1));
    let refields = step.run(&members, before, after);
    for r in &refields {
        let id = r.doc.1.2.as_slice();
        if let Some(context) = &r.old {
            // Its own words are unchanged: a member whose item was
            // rewritten left its sequence and joins again, not stored.
            words.was(id, Field::Own, &r.own);
            words.was(id, Field::Context, context);
        }
        words.set(id, Field::Context, r.field.clone());
    }
    write(tx, grp, &refields).await?;
    Ok(refields.iter().map(|r| r.delta).sum())
}

/// Writes the rows of the members joining and derives again every field
/// the write changed (members within `window` of a position in
/// `changes`), recording the fields it wrote in `words`; returns the
/// change of the context statistics.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn settle(
    tx: &mut Transaction<'_>,
    mut changes: Changes,
    window: usize,
    words: &mut WordChanges,
) -> Result<ContextDelta> {
    let mut context_len = changes.context_len;
    // Members joining are read as members not stored: always written.
    let mut step = Refields::new(window, []);
    for (grp, positions) in &changes.at {
        let joining = changes.joining.remove(grp).unwrap_or_default();
        context_len += settle_group(tx, grp, positions, joining, (&mut step, words)).await?;
    }
    Ok(ContextDelta {
        grouped: changes.grouped,
        context_len,
    })
}

/// How a write changed the context statistics (`agcore_context_stats`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ContextDelta {
    /// Change of the number of members of any sequence.
    pub(crate) grouped: i64,
    /// Change of the summed field lengths.
    pub(crate) context_len: i64,
}
