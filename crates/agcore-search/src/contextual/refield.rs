//! The decisions of one write step's settling, apart from any storage:
//! which documents get a new index entry and a new stored field, given the
//! runs (or neighbours) a store read after the step's row writes.
//!
//! A store feeds [`Refields`] what it read — runs of a sequence around its
//! changed span ([`Refields::run`]), or the documents around the changed
//! places with their neighbours ([`Refields::neighbourhood`]) — and then
//! takes the written documents nothing read held ([`Refields::rest`]).
//! Each call answers the [`Refield`]s to apply: the store writes them with
//! its own statements, batched as it likes, so the same decisions serve
//! synchronous and asynchronous drivers.

use std::collections::{BTreeMap, HashMap};
use std::hash::Hash;

use super::upkeep::{FieldTerms, RunMember, field_from, field_of, span};

/// A document the step wrote, to be indexed from scratch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written<D, T> {
    /// The document.
    pub doc: D,
    /// Its own terms.
    pub terms: T,
    /// Its own length in terms.
    pub len: i64,
    /// Whether it is in a sequence (it is then at a changed place of it).
    pub grouped: bool,
    /// What its stored field and field length hold now; `None` when it has
    /// no stored field yet (the field is then always written).
    pub stored: Option<(T, i64)>,
}

/// A document whose index entry changes: a written one (indexed anew) or
/// one whose derived field differs from the stored one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refield<D, T> {
    /// The document.
    pub doc: D,
    /// Its own terms.
    pub own: T,
    /// Its own length in terms.
    pub own_len: i64,
    /// The field it was indexed with, for a document not written by the
    /// step (its old entry is to be removed); `None` for a written one.
    pub old: Option<T>,
    /// Whether it is in a sequence (its entry has a context field).
    pub grouped: bool,
    /// Its context field (empty in no sequence).
    pub field: T,
    /// The field's length in terms.
    pub len: i64,
    /// `len` minus the stored field's length (0 for a written document
    /// without one): the change of the summed field lengths.
    pub delta: i64,
    /// Whether the stored field must be written (it differs from `field`).
    pub write: bool,
}

/// A document whose field may have changed, with the neighbours a store
/// looked up for it (for a store that reads neighbours rather than runs).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target<D> {
    /// Its own length in terms.
    pub len: i64,
    /// Its stored field's length.
    pub context_len: i64,
    /// Its `window` neighbours on each side: (document, own length), in
    /// sequence order.
    pub neighbours: Vec<(D, i64)>,
}

/// What a store that reads neighbours found after a step's row writes: the
/// documents whose fields may have changed (the written ones in a sequence
/// among them), and the stored terms of them and their neighbours (none
/// for written documents).
#[derive(Debug, Clone, Default)]
pub struct Neighbourhood<D, T> {
    /// The documents whose fields may have changed, by document.
    pub targets: BTreeMap<D, Target<D>>,
    /// Stored own terms, by document.
    pub own: HashMap<D, T>,
    /// Stored fields, by document.
    pub fields: HashMap<D, T>,
}

/// One write step's settling: the written documents not settled yet, and
/// the window.
#[derive(Debug)]
pub struct Refields<D, T> {
    window: usize,
    /// By document: the place among those given, and the document.
    written: HashMap<D, (usize, Written<D, T>)>,
}

impl<D: Clone + Eq + Hash, T: FieldTerms + Clone> Refields<D, T> {
    /// Settling with `window` neighbours a side, of a step that wrote
    /// `written`.
    pub fn new(window: usize, written: impl IntoIterator<Item = Written<D, T>>) -> Self {
        let written = written
            .into_iter()
            .enumerate()
            .map(|(i, w)| (w.doc.clone(), (i, w)))
            .collect();
        Self { window, written }
    }

    /// The window: neighbours a side.
    pub fn window(&self) -> usize {
        self.window
    }

    /// The run of a sequence read around its changed span, in sequence
    /// order — `before` members ahead of the span's first place, `after`
    /// behind its last, each up to `2 · window`, the written members of
    /// the span among the rest: the entries of the members within `window`
    /// of the span that change, in run order.
    pub fn run(
        &mut self,
        members: &[RunMember<D, T>],
        before: usize,
        after: usize,
    ) -> Vec<Refield<D, T>> {
        let middle = members.len().saturating_sub(before.saturating_add(after));
        let mut out = Vec::new();
        for at in span(before, middle, after, self.window) {
            let Some(member) = members.get(at) else {
                break;
            };
            let derived = field_of(members, at, self.window);
            out.extend(self.decide(member, derived));
        }
        out
    }

    /// The targets of `found`, each with its field derived from its
    /// neighbours' own terms (a written document's as written): their
    /// entries that change, in document order.
    pub fn neighbourhood(&mut self, found: Neighbourhood<D, T>) -> Vec<Refield<D, T>>
    where
        D: Ord,
    {
        let Neighbourhood {
            targets,
            mut own,
            mut fields,
        } = found;
        let empty = T::default();
        let derived: Vec<(T, i64)> = targets
            .values()
            .map(|t| {
                field_from(t.neighbours.iter().map(|(d, len)| {
                    let written = self.written.get(d).map(|(_, w)| &w.terms);
                    (written.or_else(|| own.get(d)).unwrap_or(&empty), *len)
                }))
            })
            .collect();
        let mut out = Vec::new();
        for ((doc, t), field) in targets.into_iter().zip(derived) {
            let stored = fields.remove(&doc).unwrap_or_default();
            let member = RunMember {
                own: own.remove(&doc).unwrap_or_default(),
                doc,
                len: t.len,
                stored: Some((stored, t.context_len)),
            };
            out.extend(self.decide(&member, field));
        }
        out
    }

    /// The written documents no run or member held (those in no
    /// sequence), indexed with an empty field, in the order given.
    pub fn rest(self) -> Vec<Refield<D, T>> {
        let mut rest: Vec<(usize, Written<D, T>)> = self.written.into_values().collect();
        rest.sort_unstable_by_key(|(i, _)| *i);
        rest.into_iter()
            .map(|(_, w)| written(w, (T::default(), 0)))
            .collect()
    }

    /// The entry of `member` with its derived `field`: always for a written
    /// document or a member whose field is not stored yet (a member
    /// joining, with no old entry), else when the field differs from the
    /// stored one.
    fn decide(&mut self, member: &RunMember<D, T>, field: (T, i64)) -> Option<Refield<D, T>> {
        if let Some((_, w)) = self.written.remove(&member.doc) {
            return Some(written(w, field));
        }
        let Some((old, stored_len)) = &member.stored else {
            return Some(written(
                Written {
                    doc: member.doc.clone(),
                    terms: member.own.clone(),
                    len: member.len,
                    grouped: true,
                    stored: None,
                },
                field,
            ));
        };
        if *stored_len == field.1 && *old == field.0 {
            return None;
        }
        Some(Refield {
            doc: member.doc.clone(),
            own: member.own.clone(),
            own_len: member.len,
            old: Some(old.clone()),
            grouped: true,
            delta: field.1.saturating_sub(*stored_len),
            field: field.0,
            len: field.1,
            write: true,
        })
    }
}

/// The entry of a written document with `field`.
fn written<D, T: PartialEq>(w: Written<D, T>, (field, len): (T, i64)) -> Refield<D, T> {
    let write = w.stored.is_none_or(|(t, l)| l != len || t != field);
    Refield {
        doc: w.doc,
        own: w.terms,
        own_len: w.len,
        old: None,
        grouped: w.grouped,
        field,
        len,
        delta: len,
        write,
    }
}

#[cfg(test)]
mod tests;
