//! [`WordChanges`]: the frequency changes of a write transaction's
//! rewrites of documents with two BM25F fields.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::distinct;

/// One of a document's two BM25F fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// Its own index words.
    Own,
    /// Its context field (words of neighbouring documents).
    Context,
}

/// One field of a document: as stored before the transaction, and as
/// written in it (`None`: unchanged).
#[derive(Debug, Default)]
struct Text {
    before: Option<String>,
    now: Option<String>,
}

impl Text {
    fn before(&self) -> &str {
        self.before.as_deref().unwrap_or("")
    }

    fn now(&self) -> &str {
        self.now.as_deref().unwrap_or_else(|| self.before())
    }
}

/// A document's two fields.
#[derive(Debug, Default)]
struct Fields {
    own: Text,
    context: Text,
}

impl Fields {
    fn get(&mut self, field: Field) -> &mut Text {
        match field {
            Field::Own => &mut self.own,
            Field::Context => &mut self.context,
        }
    }

    /// The words of both fields, before or now.
    fn words(&self, now: bool) -> BTreeSet<&str> {
        let (own, context) = if now {
            (self.own.now(), self.context.now())
        } else {
            (self.own.before(), self.context.before())
        };
        let mut words = distinct(own);
        words.extend(distinct(context));
        words
    }
}

/// The fields a write transaction changed, per document id (any bytes): a
/// transaction records, per document it touches, what each field held
/// before it and what it wrote; before its commit the frequencies shift by
/// the words each document gained or lost over both fields
/// ([`Self::deltas`]).
#[derive(Debug, Default)]
pub struct WordChanges {
    items: HashMap<Vec<u8>, Fields>,
}

impl WordChanges {
    /// Records what document `id`'s `field` held when the transaction first
    /// read it (later records of the same field are ignored): call it
    /// before [`Self::set`] for a document that is stored.
    #[inline]
    pub fn was(&mut self, id: &[u8], field: Field, text: &str) {
        let text_of = self.items.entry(id.to_vec()).or_default().get(field);
        text_of.before.get_or_insert_with(|| text.to_owned());
    }

    /// Records that the transaction wrote `text` into document `id`'s
    /// `field` (`""`: emptied, or deleted); a field with no earlier
    /// [`Self::was`] was empty (a new document, or no context field).
    #[inline]
    pub fn set(&mut self, id: &[u8], field: Field, text: String) {
        let text_of = self.items.entry(id.to_vec()).or_default().get(field);
        text_of.before.get_or_insert_with(String::new);
        text_of.now = Some(text);
    }

    /// How each word's frequency changes, in word order, without zeros: a
    /// document counts once for a word in either field.
    pub fn deltas(&self) -> Vec<(&str, i64)> {
        let mut out: BTreeMap<&str, i64> = BTreeMap::new();
        for fields in self.items.values() {
            let (before, after) = (fields.words(false), fields.words(true));
            for word in after.difference(&before) {
                *out.entry(word).or_insert(0) += 1;
            }
            for word in before.difference(&after) {
                *out.entry(word).or_insert(0) -= 1;
            }
        }
        out.into_iter().filter(|(_, d)| *d != 0).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_counts_once_over_both_fields() {
        let mut words = WordChanges::default();
        // Stored: own `a b`, context `b c`; rewritten to own `a`, context `c d`.
        words.was(b"1", Field::Own, " a b ");
        words.was(b"1", Field::Context, " b c ");
        words.set(b"1", Field::Own, " a ".into());
        words.set(b"1", Field::Context, " c d ".into());
        // New: own `a e`, context `a`.
        words.set(b"2", Field::Own, " a e ".into());
        words.set(b"2", Field::Context, " a ".into());
        // Deleted: own `c`, no context row.
        words.was(b"3", Field::Own, " c ");
        words.set(b"3", Field::Own, String::new());
        // A later record of what a field held is not the state before.
        words.was(b"1", Field::Own, " z ");
        assert_eq!(
            words.deltas(),
            [("a", 1), ("b", -1), ("c", -1), ("d", 1), ("e", 1)]
        );
    }

    #[test]
    fn unchanged_fields_change_nothing() {
        let mut words = WordChanges::default();
        words.was(b"1", Field::Own, " a ");
        words.was(b"1", Field::Context, " b ");
        words.set(b"1", Field::Context, " b ".into());
        assert!(words.deltas().is_empty());
    }
}
