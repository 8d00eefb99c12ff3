//! Keeping stored context fields current: the derivation every store with
//! a context field runs after a write, whatever its storage.
//!
//! A document's context field is the own terms of the `window` members
//! before and after it in its sequence, in sequence order (document
//! expansion with the surrounding text, as [`ContextualIndex`](super::ContextualIndex)
//! builds it), and its length the sum of their lengths. A write that adds,
//! removes or moves members changes the fields of the members within
//! `window` of those places, and of no other.
//!
//! A store reads a *run* of one sequence in order — up to `2 · window`
//! members before the first changed place, every member from the first to
//! the last changed place, up to `2 · window` after the last — and
//! [`changed`] derives the fields of every member of [`span`] (the members
//! within `window` of a changed place), returning those that differ from
//! what is stored. A run read that way holds all the neighbours of every
//! member of its span, or reaches the end of the sequence on that side.
//!
//! The field's representation is the store's ([`FieldTerms`]): text of
//! ` word ` items concatenated, space-joined words, or term frequencies.

use std::collections::BTreeMap;
use std::ops::Range;

/// A context field's terms as a store keeps them: built by appending the
/// own terms of each neighbour, in sequence order.
pub trait FieldTerms: Default + PartialEq {
    /// Appends a neighbour's own terms.
    fn add_neighbour(&mut self, own: &Self);
}

/// Text whose words carry their own separators (` word `): appended as is.
impl FieldTerms for String {
    fn add_neighbour(&mut self, own: &Self) {
        self.push_str(own);
    }
}

/// Term frequencies: a neighbour's frequencies are added (saturating).
impl FieldTerms for BTreeMap<String, i32> {
    fn add_neighbour(&mut self, own: &Self) {
        for (term, &tf) in own {
            let count = self.entry(term.clone()).or_insert(0);
            *count = count.saturating_add(tf);
        }
    }
}

/// Words separated by single spaces (`"red fox"`): a neighbour's non-empty
/// words are appended after a space, so the field is the neighbours' words
/// joined by spaces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpaceJoined(pub String);

impl FieldTerms for SpaceJoined {
    fn add_neighbour(&mut self, own: &Self) {
        if own.0.is_empty() {
            return;
        }
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(&own.0);
    }
}

/// A member of a run, as the store read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunMember<D, T> {
    /// What the store needs to write its field back (a row number, a key).
    pub doc: D,
    /// Its own terms.
    pub own: T,
    /// Its own length in terms.
    pub len: i64,
    /// Its stored field and field length; `None` for a member whose field
    /// is not stored yet (a member joining): its field is always derived.
    pub stored: Option<(T, i64)>,
}

/// A field to write: the member (an index into the run), its derived field
/// and length, and the change of length from the stored one (the whole
/// length for a member not stored).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldUpdate<T> {
    /// Index of the member in the run.
    pub at: usize,
    /// Its context field.
    pub terms: T,
    /// Its context field's length in terms.
    pub len: i64,
    /// `len` minus the stored length.
    pub delta: i64,
}

/// The field of `run[at]`: the own terms of up to `window` members on each
/// side, appended in run order, and their lengths summed. Empty for an
/// `at` outside the run.
pub fn field_of<D, T: FieldTerms>(run: &[RunMember<D, T>], at: usize, window: usize) -> (T, i64) {
    if at >= run.len() {
        return (T::default(), 0);
    }
    let start = at.saturating_sub(window);
    let end = at.saturating_add(window).saturating_add(1).min(run.len());
    let near = run.iter().enumerate().take(end).skip(start);
    field_from(near.filter(|(i, _)| *i != at).map(|(_, m)| (&m.own, m.len)))
}

/// A field from its neighbours' own terms and lengths, in sequence order:
/// for a store that reads each member's neighbours rather than runs.
pub fn field_from<'a, T: FieldTerms + 'a>(
    neighbours: impl IntoIterator<Item = (&'a T, i64)>,
) -> (T, i64) {
    let mut terms = T::default();
    let mut len = 0_i64;
    for (own, own_len) in neighbours {
        terms.add_neighbour(own);
        len = len.saturating_add(own_len);
    }
    (terms, len)
}

/// The members of a run whose fields a write may have changed: a run read
/// as `before` members ahead of the first changed place, `middle` members
/// from the first to the last changed place, `after` members behind the
/// last, gives the members within `window` of the middle.
pub fn span(before: usize, middle: usize, after: usize, window: usize) -> Range<usize> {
    let start = before.saturating_sub(window);
    let end = before
        .saturating_add(middle)
        .saturating_add(after.min(window));
    start..end
}

/// The fields of `run[range]` that differ from the stored ones, and those
/// of members not stored, in run order.
///
/// `run` must hold each member of `range`'s `window` neighbours on each
/// side, or reach the end of the sequence on that side.
pub fn changed<D, T: FieldTerms>(
    run: &[RunMember<D, T>],
    range: Range<usize>,
    window: usize,
) -> Vec<FieldUpdate<T>> {
    let mut out = Vec::new();
    for at in range {
        let Some(member) = run.get(at) else {
            break;
        };
        let (terms, len) = field_of(run, at, window);
        let (same, stored_len) = match &member.stored {
            Some((stored, stored_len)) => (*stored_len == len && *stored == terms, *stored_len),
            None => (false, 0),
        };
        if !same {
            out.push(FieldUpdate {
                at,
                delta: len.saturating_sub(stored_len),
                terms,
                len,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(doc: i64, own: &str, len: i64) -> RunMember<i64, String> {
        RunMember {
            doc,
            own: own.to_owned(),
            len,
            stored: Some((String::new(), 0)),
        }
    }

    #[test]
    fn a_field_is_its_neighbours_terms_in_order() {
        let m = [
            member(1, " xa ", 1),
            member(2, " xb  xb ", 2),
            member(3, " xc ", 1),
            member(4, " xd ", 1),
        ];
        assert_eq!(field_of(&m, 0, 1), (" xb  xb ".to_owned(), 2));
        assert_eq!(field_of(&m, 1, 1), (" xa  xc ".to_owned(), 2));
        assert_eq!(field_of(&m, 3, 1), (" xc ".to_owned(), 1));
        assert_eq!(field_of(&m, 1, 2), (" xa  xc  xd ".to_owned(), 3));
        assert_eq!(field_of(&m[..1], 0, 3), (String::new(), 0));
        assert_eq!(field_of(&m, 9, 1), (String::new(), 0));
        assert_eq!(
            field_of(&m, 2, usize::MAX),
            (" xa  xb  xb  xd ".to_owned(), 4)
        );
    }

    #[test]
    fn only_changed_fields_and_new_members_are_written() {
        let mut m = vec![member(1, " xa ", 1), member(2, " xb ", 1)];
        m[0].stored = Some((" xb ".to_owned(), 1));
        let updates = changed(&m, 0..2, 1);
        let expected = FieldUpdate {
            at: 1,
            terms: " xa ".to_owned(),
            len: 1,
            delta: 1,
        };
        assert_eq!(updates, [expected]);
        assert!(changed(&m, 0..1, 1).is_empty());
        m[0].stored = None;
        assert_eq!(changed(&m, 0..1, 1).len(), 1, "a new member is written");
        assert!(changed(&m, 5..9, 1).is_empty());
    }

    #[test]
    fn representations_append_as_their_stores_keep_them() {
        let mut joined = SpaceJoined::default();
        for own in ["red fox", "", "jumps"] {
            joined.add_neighbour(&SpaceJoined(own.to_owned()));
        }
        assert_eq!(joined.0, "red fox jumps");
        let tf = |pairs: &[(&str, i32)]| -> BTreeMap<String, i32> {
            pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
        };
        let mut field = tf(&[("fox", 1)]);
        field.add_neighbour(&tf(&[("fox", 2), ("red", 1)]));
        assert_eq!(field, tf(&[("fox", 3), ("red", 1)]));
    }

    #[test]
    fn the_span_is_the_middle_and_a_window_each_side() {
        assert_eq!(span(4, 3, 4, 2), 2..9);
        assert_eq!(span(1, 3, 0, 2), 0..4, "a run at the sequence's ends");
        assert_eq!(span(0, 0, 0, 5), 0..0);
    }

    proptest::proptest! {
        /// A run read around the changed places derives, for every member
        /// within `window` of them, the field the whole sequence gives.
        #[test]
        fn a_run_derives_what_the_whole_sequence_gives(
            words in proptest::collection::vec("[a-c]{0,3}", 1..30),
            (a, b) in (0usize..30, 0usize..30),
            window in 0usize..4,
        ) {
            let n = words.len();
            let own = |w: &String| SpaceJoined(w.clone());
            let sequence: Vec<RunMember<usize, SpaceJoined>> = words
                .iter()
                .enumerate()
                .map(|(i, w)| RunMember { doc: i, own: own(w), len: 1, stored: None })
                .collect();
            let (lo, hi) = (a.min(b) % n, a.max(b) % n);
            let (lo, hi) = (lo.min(hi), lo.max(hi));
            let start = lo.saturating_sub(2 * window);
            let end = (hi + 1 + 2 * window).min(n);
            let run = &sequence[start..end];
            let (before, middle) = (lo - start, hi + 1 - lo);
            let range = span(before, middle, end - hi - 1, window);
            let updates = changed(run, range.clone(), window);
            proptest::prop_assert_eq!(updates.len(), range.len());
            for u in updates {
                let at = start + u.at;
                proptest::prop_assert!(at + window >= lo && at <= hi + window);
                proptest::prop_assert_eq!((u.terms, u.len), field_of(&sequence, at, window));
            }
            let covered = (lo.saturating_sub(window)..(hi + window + 1).min(n)).len();
            proptest::prop_assert_eq!(range.len(), covered);
        }
    }
}
