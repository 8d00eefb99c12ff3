//! Posting lists ordered by an internal dense document number (slot), with
//! the per-term statistics that bound a term's BM25 contribution.
//!
//! A posting carries the document's field lengths, so scoring a posting
//! never touches the slot table.

use crate::retriever::Bm25F;

/// One occurrence record: the document's slot, the term's frequency in the
/// document's own text and context field, and the lengths of both fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Posting {
    /// Internal document number (index into the slot table).
    pub(super) slot: u32,
    /// Occurrences of the term in the document's own text.
    pub(super) tf: u32,
    /// The document's own length in terms (BM25's document length).
    pub(super) len: u32,
    /// Occurrences of the term in the context field (`tf + context_tf ≥ 1`).
    pub(super) context_tf: u32,
    /// The context field's length in terms.
    pub(super) context_len: u32,
}

impl Posting {
    /// The term's BM25F weight in this document, idf excluded.
    pub(super) fn tf_part(&self, fields: &Bm25F) -> f64 {
        fields.tf_part(
            f64::from(self.tf),
            f64::from(self.len),
            f64::from(self.context_tf),
            f64::from(self.context_len),
        )
    }
}

/// One term's postings in ascending slot order.
///
/// Slots are handed out in increasing order, and a renumbering only ever
/// rewrites a suffix of the slot table (see `segments`), so appending keeps
/// the list sorted. A deleted document's posting stays behind as a tombstone
/// (its slot is dead) until its segment is rewritten; `live` counts the others.
#[derive(Debug, Default)]
pub(super) struct PostingList {
    entries: Vec<Posting>,
    /// Postings of live documents: the term's document frequency.
    live: u32,
    /// Largest `tf` ever added (an upper bound over the live postings).
    max_tf: u32,
    /// Smallest document length ever added (a lower bound over the live postings).
    min_len: u32,
    /// Largest `context_tf` ever added.
    max_context_tf: u32,
    /// Smallest context length ever added.
    min_context_len: u32,
}

impl PostingList {
    /// Appends the posting of a newly indexed document; `slot` must be larger
    /// than every slot already in the list.
    pub(super) fn push(&mut self, posting: Posting) {
        self.live = self.live.saturating_add(1);
        self.push_moved(posting);
    }

    /// Appends the posting of a live document already counted in `df` (one
    /// whose posting [`PostingList::truncate_from`] removed when its segment
    /// was rewritten).
    pub(super) fn push_moved(&mut self, posting: Posting) {
        if self.entries.is_empty() {
            self.min_len = posting.len;
            self.min_context_len = posting.context_len;
        }
        self.entries.push(posting);
        self.max_tf = self.max_tf.max(posting.tf);
        self.min_len = self.min_len.min(posting.len);
        self.max_context_tf = self.max_context_tf.max(posting.context_tf);
        self.min_context_len = self.min_context_len.min(posting.context_len);
    }

    /// Drops every posting with slot ≥ `slot` (live or not) without changing
    /// `df`: the live ones are appended again with [`PostingList::push_moved`].
    pub(super) fn truncate_from(&mut self, slot: u32) {
        if self.entries.last().is_none_or(|p| p.slot < slot) {
            return;
        }
        let keep = self.entries.partition_point(|p| p.slot < slot);
        self.entries.truncate(keep);
    }

    /// Records that one live document holding the term was deleted; returns
    /// whether live postings remain.
    pub(super) fn remove_one(&mut self) -> bool {
        self.live = self.live.saturating_sub(1);
        self.live > 0
    }

    /// The term's document frequency (live documents holding it).
    pub(super) fn df(&self) -> u32 {
        self.live
    }

    /// Every posting, tombstones included, in ascending slot order.
    pub(super) fn entries(&self) -> &[Posting] {
        &self.entries
    }

    /// An upper bound of the term's BM25F tf part in any live document:
    /// the part of the largest frequencies at the smallest lengths, since it
    /// grows with each field's frequency and shrinks with each field's
    /// length (Robertson & Zaragoza 2009, eq. 3.15). Without context
    /// postings it is plain BM25's `tf_part(max tf, min length)`.
    pub(super) fn max_tf_part(&self, fields: &Bm25F) -> f64 {
        Posting {
            slot: 0,
            tf: self.max_tf,
            len: self.min_len,
            context_tf: self.max_context_tf,
            context_len: self.min_context_len,
        }
        .tf_part(fields)
    }
}

/// A forward cursor over one posting list.
#[derive(Debug)]
pub(super) struct Cursor<'a> {
    entries: &'a [Posting],
    pos: usize,
    /// The term's position among the query's terms.
    pub(super) term: usize,
    /// The term's idf.
    pub(super) idf: f64,
    /// Upper bound of the term's contribution to any document's score.
    pub(super) upper: f64,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(list: &'a PostingList, term: usize, idf: f64, upper: f64) -> Self {
        Self {
            entries: list.entries(),
            pos: 0,
            term,
            idf,
            upper,
        }
    }

    /// The posting under the cursor, `None` when exhausted.
    pub(super) fn current(&self) -> Option<Posting> {
        self.entries.get(self.pos).copied()
    }

    /// Moves past the current posting.
    pub(super) fn advance(&mut self) {
        self.pos = self.pos.saturating_add(1);
    }

    /// Moves to the first posting with slot ≥ `slot` (galloping, then binary
    /// search) and returns it when its slot is exactly `slot`.
    pub(super) fn seek(&mut self, slot: u32) -> Option<Posting> {
        self.skip_to(slot);
        self.current().filter(|p| p.slot == slot)
    }

    /// Moves to the first posting with slot ≥ `slot` (never backwards).
    pub(super) fn skip_to(&mut self, slot: u32) {
        let rest = self.entries.get(self.pos..).unwrap_or_default();
        let mut bound = 1usize;
        while rest.get(bound).is_some_and(|p| p.slot < slot) {
            bound = bound.saturating_mul(2);
        }
        let window = rest
            .get(..bound.saturating_add(1).min(rest.len()))
            .unwrap_or(rest);
        self.pos = self
            .pos
            .saturating_add(window.partition_point(|p| p.slot < slot));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retriever::Bm25;

    fn p(slot: u32, tf: u32, len: u32) -> Posting {
        Posting {
            slot,
            tf,
            len,
            ..Posting::default()
        }
    }

    fn fields(avg_len: f64) -> Bm25F {
        Bm25F {
            bm25: Bm25::default(),
            avg_len,
            avg_context_len: 10.0,
            weight: 0.5,
        }
    }

    #[test]
    fn seek_finds_exact_slots_and_stops_after_gaps() {
        let mut list = PostingList::default();
        for slot in (0..1000).step_by(3) {
            list.push(p(slot, 1, 5));
        }
        let mut c = Cursor::new(&list, 0, 1.0, 1.0);
        assert_eq!(c.seek(0).map(|p| p.slot), Some(0));
        assert_eq!(c.seek(4), None);
        assert_eq!(c.current().map(|p| p.slot), Some(6));
        assert_eq!(c.seek(600).map(|p| p.slot), Some(600));
        assert_eq!(c.seek(5000), None);
        assert!(c.current().is_none());
    }

    #[test]
    fn truncation_keeps_df_and_order() {
        let mut list = PostingList::default();
        for slot in [1, 4, 7, 9] {
            list.push(p(slot, 1, 5));
        }
        list.truncate_from(5);
        assert_eq!(
            list.entries().iter().map(|p| p.slot).collect::<Vec<_>>(),
            [1, 4]
        );
        assert_eq!(list.df(), 4);
        list.push_moved(p(5, 2, 3));
        list.push_moved(p(6, 1, 8));
        assert_eq!(list.df(), 4);
        assert_eq!(
            list.entries().last().map(|p| (p.slot, p.tf, p.len)),
            Some((6, 1, 8))
        );
        let mut c = Cursor::new(&list, 0, 1.0, 1.0);
        c.skip_to(5);
        assert_eq!(c.current().map(|p| p.slot), Some(5));
        c.skip_to(2);
        assert_eq!(c.current().map(|p| p.slot), Some(5), "never moves back");
    }

    #[test]
    fn statistics_bound_the_live_postings() {
        let mut list = PostingList::default();
        list.push(p(1, 2, 9));
        list.push(p(4, 1, 3));
        assert_eq!(list.df(), 2);
        let bm25 = Bm25::default();
        let bound = list.max_tf_part(&fields(6.0));
        assert!(bound >= bm25.tf_part(2.0, 9.0, 6.0));
        assert!(bound >= bm25.tf_part(1.0, 3.0, 6.0));
        let context = Posting {
            slot: 7,
            tf: 0,
            len: 4,
            context_tf: 2,
            context_len: 12,
        };
        list.push(context);
        let bound = list.max_tf_part(&fields(6.0));
        assert!(bound >= context.tf_part(&fields(6.0)));
        assert!(bound >= bm25.tf_part(2.0, 9.0, 6.0));
        assert!(list.remove_one());
        assert!(list.remove_one());
        assert!(!list.remove_one());
    }
}
