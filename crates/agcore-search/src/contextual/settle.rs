//! Settling one write step of a store with stored context fields and an
//! index of both fields: after the step's row writes, the documents it
//! wrote are indexed with their fields and every document whose
//! neighbours changed gets its field (and index entry) again.
//!
//! Which documents can change: a field is the `window` neighbours on each
//! side, so it changes only when a document appears, leaves or changes
//! within that window — and then, in the final order, the document is
//! within `window` of that place. So the neighbours of every old and new
//! place of the changed documents, read after the step's row writes, are
//! all the documents whose field may differ; each is compared with its
//! stored field ([`Refields`] decides).
//!
//! [`settle`] runs those decisions over a synchronous store
//! ([`FieldRows`]) whose fields and index terms are [`SpaceJoined`] words;
//! asynchronous stores feed [`Refields`] themselves.

use std::hash::Hash;

use super::refield::{Refield, Refields, Written};
use super::spans::changed_spans;
use super::upkeep::{RunMember, SpaceJoined};

/// An index entry: `(document, own terms, context field)`; the field is
/// `None` for a document in no sequence.
pub type Entry<D> = (D, String, Option<String>);

/// A document the step wrote, to be indexed from scratch.
#[derive(Debug)]
pub struct Fresh<D, P> {
    /// The document.
    pub doc: D,
    /// Its own terms.
    pub terms: String,
    /// Its place in its sequence; `None` when in none. The place is also
    /// in [`Changes::moved`].
    pub at: Option<P>,
    /// What its stored context field holds now.
    pub stored_context: String,
}

/// What one write step changed.
#[derive(Debug)]
pub struct Changes<D, P> {
    /// Index entries the step invalidated, as indexed (the documents are
    /// gone or in [`Self::fresh`]).
    pub removed: Vec<Entry<D>>,
    /// Documents written by the step (not indexed).
    pub fresh: Vec<Fresh<D, P>>,
    /// Places where a document appeared, left or changed.
    pub moved: Vec<P>,
}

impl<D, P> Default for Changes<D, P> {
    fn default() -> Self {
        Self {
            removed: Vec::new(),
            fresh: Vec::new(),
            moved: Vec::new(),
        }
    }
}

impl<D, P: Clone> Changes<D, P> {
    /// Whether the step changed nothing the index holds.
    pub fn is_empty(&self) -> bool {
        self.removed.is_empty() && self.fresh.is_empty() && self.moved.is_empty()
    }

    /// A document the step removed (or rewrote), as indexed: its own terms,
    /// its stored context field and its place (`None`: in no sequence,
    /// indexed without a field).
    pub fn remove(&mut self, doc: D, terms: String, context: String, at: Option<P>) {
        self.removed
            .push((doc, terms, at.is_some().then_some(context)));
        self.moved.extend(at);
    }

    /// A document the step wrote, to be indexed at `at` with its own
    /// `terms`; `stored_context` is what its stored field holds now (empty
    /// for a new document).
    pub fn write(&mut self, doc: D, terms: String, at: Option<P>, stored_context: String) {
        self.moved.extend(at.clone());
        self.fresh.push(Fresh {
            doc,
            terms,
            at,
            stored_context,
        });
    }
}

/// A store's documents with context fields, as [`settle`] reads runs of a
/// sequence and writes fields.
pub trait FieldRows {
    /// A document (a row number).
    type Doc: Copy + Eq + Hash;
    /// A place in a sequence: the sequence, then the store's list order.
    type Place: Ord + Clone;
    /// A sequence.
    type Sequence: Ord + Clone;
    /// The storage's error.
    type Error;

    /// The sequence of `place`.
    fn sequence(place: &Self::Place) -> &Self::Sequence;

    /// The members of the sequence of `lo` around `lo..=hi` (two places of
    /// it, `lo <= hi`), in list order, with their stored fields: up to
    /// `margin` before `lo`, every member from `lo` to `hi`, up to `margin`
    /// after `hi`; and how many are before and after.
    ///
    /// # Errors
    /// The storage's.
    #[allow(clippy::type_complexity)]
    fn run(
        &mut self,
        places: (&Self::Place, &Self::Place),
        margin: usize,
    ) -> Result<(Vec<RunMember<Self::Doc, SpaceJoined>>, usize, usize), Self::Error>;

    /// Writes the stored context field of `doc`.
    ///
    /// # Errors
    /// The storage's.
    fn set_context(&mut self, doc: Self::Doc, terms: &str) -> Result<(), Self::Error>;
}

/// Applies `changes` with `window` neighbours a side: derives again the
/// fields of each changed sequence's run and writes those that changed,
/// and returns the index entries to remove (the invalidated ones and the
/// old entries of changed fields) and to add (the fresh documents with
/// their fields, the new entries of changed fields). Run it after the
/// step's row writes.
///
/// # Errors
/// The first error of `rows`.
#[allow(clippy::type_complexity)]
pub fn settle<S: FieldRows>(
    rows: &mut S,
    window: usize,
    changes: Changes<S::Doc, S::Place>,
) -> Result<(Vec<Entry<S::Doc>>, Vec<Entry<S::Doc>>), S::Error> {
    let Changes {
        mut removed,
        fresh,
        moved,
    } = changes;
    let mut added: Vec<Entry<S::Doc>> = Vec::with_capacity(fresh.len());
    let mut step = Refields::new(
        window,
        fresh.into_iter().map(|f| Written {
            doc: f.doc,
            terms: SpaceJoined(f.terms),
            len: 0,
            grouped: f.at.is_some(),
            stored: Some((SpaceJoined(f.stored_context), 0)),
        }),
    );
    for (lo, hi) in changed_spans(moved, S::sequence).values() {
        let (members, before, after) = rows.run((lo, hi), window.saturating_mul(2))?;
        for r in step.run(&members, before, after) {
            apply(rows, r, (&mut removed, &mut added))?;
        }
    }
    // Documents in no sequence (one in a sequence was settled with its run).
    for r in step.rest() {
        apply(rows, r, (&mut removed, &mut added))?;
    }
    Ok((removed, added))
}

/// Writes the field of `r` when it changed, and moves its old entry (if
/// it had one) to `removed` and its new one to `added`.
#[allow(clippy::type_complexity)]
fn apply<S: FieldRows>(
    rows: &mut S,
    r: Refield<S::Doc, SpaceJoined>,
    (removed, added): (&mut Vec<Entry<S::Doc>>, &mut Vec<Entry<S::Doc>>),
) -> Result<(), S::Error> {
    if r.write {
        rows.set_context(r.doc, &r.field.0)?;
    }
    if let Some(old) = r.old {
        removed.push((r.doc, r.own.0.clone(), Some(old.0)));
    }
    added.push((r.doc, r.own.0, r.grouped.then_some(r.field.0)));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One sequence of documents `0..n` at places `0..n`, in memory.
    struct Rows {
        own: Vec<&'static str>,
        fields: Vec<String>,
        writes: Vec<(usize, String)>,
    }

    impl FieldRows for Rows {
        type Doc = usize;
        type Place = (u8, usize);
        type Sequence = u8;
        type Error = ();
        fn sequence(place: &(u8, usize)) -> &u8 {
            &place.0
        }
        fn run(
            &mut self,
            ((_, lo), (_, hi)): (&(u8, usize), &(u8, usize)),
            margin: usize,
        ) -> Result<(Vec<RunMember<usize, SpaceJoined>>, usize, usize), ()> {
            let start = lo.saturating_sub(margin);
            let end = (hi + 1 + margin).min(self.own.len());
            let members = (start..end)
                .map(|d| RunMember {
                    doc: d,
                    own: SpaceJoined(self.own[d].to_owned()),
                    len: 0,
                    stored: Some((SpaceJoined(self.fields[d].clone()), 0)),
                })
                .collect();
            Ok((members, lo - start, end - hi - 1))
        }
        fn set_context(&mut self, doc: usize, terms: &str) -> Result<(), ()> {
            self.fields[doc] = terms.to_owned();
            self.writes.push((doc, terms.to_owned()));
            Ok(())
        }
    }

    #[test]
    fn a_fresh_document_is_indexed_and_its_neighbours_fields_follow() {
        let mut rows = Rows {
            own: vec!["a", "b", "c", "d"],
            // Document 2 was `x` before the step rewrote it to `c`: its
            // neighbours' fields still hold `x`; its own field is current.
            fields: vec!["b".into(), "a x".into(), "b d".into(), "x".into()],
            writes: Vec::new(),
        };
        let changes = Changes {
            removed: vec![(2, "x".to_owned(), Some("b d".to_owned()))],
            fresh: vec![Fresh {
                doc: 2,
                terms: "c".to_owned(),
                at: Some((0, 2)),
                stored_context: "b d".to_owned(),
            }],
            moved: vec![(0, 2)],
        };
        let (removed, added) = settle(&mut rows, 1, changes).unwrap();
        assert_eq!(rows.fields, ["b", "a c", "b d", "c"]);
        assert_eq!(rows.writes, [(1, "a c".to_owned()), (3, "c".to_owned())]);
        assert_eq!(
            removed.len(),
            3,
            "the fresh document's and two neighbours' old entries"
        );
        let mut added: Vec<usize> = added.into_iter().map(|e| e.0).collect();
        added.sort_unstable();
        assert_eq!(added, [1, 2, 3]);
    }
}
