//! Deriving context fields from a run of sequence members in list order:
//! pure arithmetic, shared by writers ([`super::settle()`]) and the
//! rebuild ([`super::sync`]).

use std::ops::Range;

use super::rows::Position;

/// A member of a sequence as read for deriving fields: its position, its
/// own `terms` words and length, and its stored field (`stored` false: a
/// member joining, with no row yet).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Member {
    pub(crate) doc: i64,
    pub(crate) position: Position,
    pub(crate) stored: bool,
    pub(crate) terms: String,
    pub(crate) len: i64,
    pub(crate) context_terms: String,
    pub(crate) context_len: i64,
}

/// A field to write: the member's `doc` and position, its new words and
/// length, and the change of length.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Update {
    pub(crate) doc: i64,
    pub(crate) position: Position,
    pub(crate) context_terms: String,
    pub(crate) context_len: i64,
    pub(crate) delta: i64,
}

/// The field of `members[at]`: the `terms` of up to `window` members on
/// each side concatenated in list order (each occurrence stays ` word `,
/// so the server counts frequencies as in `terms`), and their lengths
/// summed.
pub(crate) fn field_of(members: &[Member], at: usize, window: usize) -> (String, i64) {
    let start = at.saturating_sub(window);
    let end = at
        .saturating_add(window)
        .saturating_add(1)
        .min(members.len());
    let mut terms = String::new();
    let mut len = 0_i64;
    for (i, member) in members.iter().enumerate().take(end).skip(start) {
        if i != at {
            terms.push_str(&member.terms);
            len = len.saturating_add(member.len);
        }
    }
    (terms, len)
}

/// The fields of `members[range]` that differ from the stored ones, and
/// those of members not stored yet.
/// `members` must hold each member of `range`'s `window` neighbours on
/// each side, or reach the end of the sequence on that side.
pub(crate) fn changed(members: &[Member], range: Range<usize>, window: usize) -> Vec<Update> {
    let mut out = Vec::new();
    for at in range {
        let Some(member) = members.get(at) else {
            break;
        };
        let (context_terms, context_len) = field_of(members, at, window);
        if !member.stored
            || context_len != member.context_len
            || context_terms != member.context_terms
        {
            out.push(Update {
                doc: member.doc,
                position: member.position.clone(),
                delta: context_len - member.context_len,
                context_terms,
                context_len,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(doc: i64, terms: &str, len: i64) -> Member {
        Member {
            doc,
            position: (doc, 0, Vec::new()),
            stored: true,
            terms: terms.to_owned(),
            len,
            context_terms: String::new(),
            context_len: 0,
        }
    }

    #[test]
    fn a_field_is_its_neighbours_words_in_order() {
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
        assert_eq!(
            field_of(&m, 2, usize::MAX),
            (" xa  xb  xb  xd ".to_owned(), 4)
        );
    }

    #[test]
    fn only_changed_fields_are_written() {
        let mut m = vec![member(1, " xa ", 1), member(2, " xb ", 1)];
        m[0].context_terms = " xb ".to_owned();
        m[0].context_len = 1;
        let updates = changed(&m, 0..2, 1);
        assert_eq!(
            updates,
            [Update {
                doc: 2,
                position: (2, 0, Vec::new()),
                context_terms: " xa ".to_owned(),
                context_len: 1,
                delta: 1
            }]
        );
        assert!(changed(&m, 0..1, 1).is_empty());
        m[0].stored = false;
        assert_eq!(changed(&m, 0..1, 1).len(), 1, "a new member is written");
        assert!(changed(&m, 5..9, 1).is_empty());
    }
}
