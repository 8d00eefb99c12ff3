//! Which blocks a write of the impact-ordered index stores, whatever the
//! storage: the blocks of documents added ([`add_blocks`]), the blocks
//! that lose postings of documents removed ([`strip_blocks`]) and a run
//! cut into blocks of one key length ([`length_blocks`]). The storage
//! reads and deletes stored blocks through [`BlockTable`] and inserts the
//! blocks these functions return.
//!
//! A block holds at most [`BLOCK_DOCS`] postings of one group key (term,
//! run code, key length), ascending by document, and is keyed by its first
//! document.

use super::group::{GroupKey, Grouped};
use super::layout::{BLOCK_DOCS, Posting, decode_postings};

/// Writes of at most this many documents append to existing blocks.
pub const SMALL_WRITE: usize = 16;

/// A block to insert: its group key and postings (ascending by document).
pub type BlockRef<'a> = (GroupKey<'a>, &'a [Posting]);

/// A block to insert whose postings were rebuilt from a stored block.
pub type Rebuilt<'a> = (GroupKey<'a>, Vec<Posting>);

/// A stored block: its first document and its value ([`encode_postings`](super::encode_postings)).
pub type StoredBlock = (i64, Vec<u8>);

/// The stored blocks of an index, as a write reads and deletes them.
pub trait BlockTable {
    /// The storage's error.
    type Error;

    /// The last block (highest first document) of the group `key`.
    ///
    /// # Errors
    /// The storage's.
    fn last_block(&mut self, key: GroupKey<'_>) -> Result<Option<StoredBlock>, Self::Error>;

    /// The blocks of the group `key` whose documents range over some of
    /// `docs` (`(first, last)`, inclusive).
    ///
    /// # Errors
    /// The storage's.
    fn blocks_meeting(
        &mut self,
        key: GroupKey<'_>,
        docs: (i64, i64),
    ) -> Result<Vec<StoredBlock>, Self::Error>;

    /// Deletes the block of the group `key` whose first document is `first`.
    ///
    /// # Errors
    /// The storage's.
    fn delete_block(&mut self, key: GroupKey<'_>, first: i64) -> Result<(), Self::Error>;
}

/// The first and last document of a block's postings (0 when empty).
#[inline]
#[must_use]
pub fn doc_range(postings: &[Posting]) -> (i64, i64) {
    let first = postings.first().map_or(0, |p| p.1);
    let last = postings.last().map_or(0, |p| p.1);
    (first, last)
}

/// The blocks to insert for `grouped` (documents not indexed yet): each
/// group's postings in blocks of [`BLOCK_DOCS`]; a small write (at most
/// [`SMALL_WRITE`] documents, single saves) joins each group's postings to
/// its last stored block while that has room, deleting it and returning it
/// rebuilt, so blocks stay full however the documents arrive. Returns the
/// new blocks and the rebuilt ones ([`with_rebuilt`] puts them together).
///
/// # Errors
/// The first error of `table`.
pub fn add_blocks<'g, T: BlockTable>(
    table: &mut T,
    grouped: &'g Grouped<'_>,
) -> Result<(Vec<BlockRef<'g>>, Vec<Rebuilt<'g>>), T::Error> {
    let mut blocks: Vec<BlockRef<'g>> = Vec::with_capacity(grouped.groups.len());
    let mut rebuilt: Vec<Rebuilt<'g>> = Vec::new();
    for (key, range) in &grouped.groups {
        let list = grouped.postings.get(range.clone()).unwrap_or_default();
        if grouped.docs <= SMALL_WRITE
            && let Some(joined) = join_last_block(table, *key, list)?
        {
            rebuilt.push((*key, joined));
            continue;
        }
        for block in list.chunks(BLOCK_DOCS) {
            blocks.push((*key, block));
        }
    }
    Ok((blocks, rebuilt))
}

/// When the last block of `key` has room for `list`, deletes it and returns
/// its postings merged with `list` (to be inserted again); `None` otherwise.
fn join_last_block<T: BlockTable>(
    table: &mut T,
    key: GroupKey<'_>,
    list: &[Posting],
) -> Result<Option<Vec<Posting>>, T::Error> {
    let Some((first, blob)) = table.last_block(key)? else {
        return Ok(None);
    };
    // 12 bytes a posting (`encode_postings`).
    if blob.len() / 12 + list.len() > BLOCK_DOCS {
        return Ok(None);
    }
    let mut postings = decode_postings(&blob);
    postings.extend_from_slice(list);
    postings.sort_unstable_by_key(|p| p.1);
    postings.dedup_by_key(|p| p.1);
    table.delete_block(key, first)?;
    Ok(Some(postings))
}

/// `blocks` followed by `rebuilt`, as blocks to insert.
#[must_use]
pub fn with_rebuilt<'a>(
    mut blocks: Vec<BlockRef<'a>>,
    rebuilt: &'a [Rebuilt<'_>],
) -> Vec<BlockRef<'a>> {
    blocks.extend(rebuilt.iter().map(|(key, p)| (*key, p.as_slice())));
    blocks
}

/// Takes the postings of `grouped` (documents removed, as indexed) out of
/// their stored blocks: deletes each block that held one and returns what
/// it keeps (non-empty), to be inserted again.
///
/// # Errors
/// The first error of `table`.
pub fn strip_blocks<'g, T: BlockTable>(
    table: &mut T,
    grouped: &'g Grouped<'_>,
) -> Result<Vec<Rebuilt<'g>>, T::Error> {
    let mut rewritten: Vec<Rebuilt<'g>> = Vec::new();
    for (key, range) in &grouped.groups {
        let gone = grouped.postings.get(range.clone()).unwrap_or_default();
        let (Some(min), Some(max)) = (gone.first(), gone.last()) else {
            continue;
        };
        for (first, blob) in table.blocks_meeting(*key, (min.1, max.1))? {
            let held = decode_postings(&blob);
            let kept: Vec<Posting> = held
                .iter()
                .copied()
                .filter(|p| gone.binary_search_by_key(&p.1, |g| g.1).is_err())
                .collect();
            if kept.len() == held.len() {
                continue;
            }
            table.delete_block(*key, first)?;
            if !kept.is_empty() {
                rewritten.push((*key, kept));
            }
        }
    }
    Ok(rewritten)
}

/// The postings of one (term, run code) run as blocks of one key length
/// each, at most [`BLOCK_DOCS`] a block: `postings` are sorted (by key
/// length, then document) and repeats dropped first.
pub fn length_blocks<'a>(
    (term, code): (&'a str, u32),
    postings: &'a mut Vec<Posting>,
) -> Vec<BlockRef<'a>> {
    postings.sort_unstable();
    postings.dedup();
    let mut blocks: Vec<BlockRef<'a>> = Vec::new();
    for same_length in postings.chunk_by(|a, b| a.0 == b.0) {
        let Some(&(len, _)) = same_length.first() else {
            continue;
        };
        for block in same_length.chunks(BLOCK_DOCS) {
            blocks.push(((term, code, len), block));
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::super::group::group_docs;
    use super::super::layout::{FieldDoc, encode_postings};
    use super::*;
    use std::collections::BTreeMap;

    /// A group key owning its term.
    type OwnedKey = (String, u32, u32);

    /// Blocks in memory, keyed by group key and first document.
    #[derive(Default)]
    struct Table(BTreeMap<(OwnedKey, i64), Vec<u8>>);

    fn owned(key: GroupKey<'_>) -> OwnedKey {
        (key.0.to_owned(), key.1, key.2)
    }

    impl BlockTable for Table {
        type Error = ();
        fn last_block(&mut self, key: GroupKey<'_>) -> Result<Option<StoredBlock>, ()> {
            let k = owned(key);
            Ok(self
                .0
                .range((k.clone(), i64::MIN)..=(k, i64::MAX))
                .next_back()
                .map(|((_, first), blob)| (*first, blob.clone())))
        }
        fn blocks_meeting(
            &mut self,
            key: GroupKey<'_>,
            (first, last): (i64, i64),
        ) -> Result<Vec<StoredBlock>, ()> {
            let k = owned(key);
            Ok(self
                .0
                .range((k.clone(), i64::MIN)..=(k, last))
                .filter(|(_, blob)| decode_postings(blob).last().is_some_and(|p| p.1 >= first))
                .map(|((_, f), blob)| (*f, blob.clone()))
                .collect())
        }
        fn delete_block(&mut self, key: GroupKey<'_>, first: i64) -> Result<(), ()> {
            self.0.remove(&(owned(key), first));
            Ok(())
        }
    }

    impl Table {
        fn insert(&mut self, blocks: &[BlockRef<'_>]) {
            for (key, postings) in blocks {
                let blob = encode_postings(postings);
                self.0.insert((owned(*key), doc_range(postings).0), blob);
            }
        }
        fn docs(&self) -> Vec<i64> {
            let mut docs: Vec<i64> = self
                .0
                .values()
                .flat_map(|b| decode_postings(b))
                .map(|p| p.1)
                .collect();
            docs.sort_unstable();
            docs
        }
    }

    #[test]
    fn single_saves_fill_the_last_block_and_removals_rewrite_blocks() {
        let mut table = Table::default();
        for doc in 0..40 {
            let grouped = group_docs(&[FieldDoc::plain(doc, "fox")], 0);
            let (blocks, rebuilt) = add_blocks(&mut table, &grouped).unwrap();
            table.insert(&with_rebuilt(blocks, &rebuilt));
        }
        assert_eq!(table.0.len(), 1, "one block holds every single save");
        assert_eq!(table.docs(), (0..40).collect::<Vec<_>>());
        let gone: Vec<FieldDoc<'_>> = (0..40)
            .filter(|d| d % 3 == 0)
            .map(|d| FieldDoc::plain(d, "fox"))
            .collect();
        let grouped = group_docs(&gone, 0);
        let rebuilt = strip_blocks(&mut table, &grouped).unwrap();
        table.insert(&with_rebuilt(Vec::new(), &rebuilt));
        assert_eq!(
            table.docs(),
            (0..40).filter(|d| d % 3 != 0).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_run_is_cut_by_length_then_block_size() {
        let mut postings: Vec<Posting> = (0..(BLOCK_DOCS as i64 + 3)).map(|d| (2, d)).collect();
        postings.extend([(1, 9), (1, 4), (1, 9)]);
        let blocks = length_blocks(("fox", 1), &mut postings);
        let shape: Vec<(u32, usize, i64)> = blocks
            .iter()
            .map(|((_, _, len), p)| (*len, p.len(), p[0].1))
            .collect();
        assert_eq!(
            shape,
            [(1, 2, 4), (2, BLOCK_DOCS, 0), (2, 3, BLOCK_DOCS as i64)]
        );
    }
}
