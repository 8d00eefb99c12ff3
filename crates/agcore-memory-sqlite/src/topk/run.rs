//! Sorted access to one (term, tf bucket) run of the impact-ordered index.

use crate::error::Result;

use rusqlite::Rows;

use crate::impact::{Posting, TF_BUCKETS, decode_postings, tf_part};

/// A length range and its postings, as read from one block.
type RangeBlock = (u32, Vec<Posting>);

/// Sorted access to one (term, tf bucket) run: its blocks by length range,
/// the blocks of one range merged and sorted by (length, document).
pub(super) struct Run<'s> {
    /// Index of the term among the query's terms with postings.
    pub(super) term: usize,
    pub(super) idf: f64,
    /// The tf of every posting of the run, `None` for the last bucket (`tf ≥ TF_BUCKETS`).
    pub(super) tf: Option<u32>,
    /// The term's largest tf (bounds the last bucket).
    pub(super) max_tf: u32,
    pub(super) rows: Rows<'s>,
    /// A block read ahead (the first of the next length range).
    pub(super) pending: Option<(u32, Vec<(u32, i64)>)>,
    /// The current range's postings `(len, doc)`, ascending; `pos` is past `next`.
    pub(super) class: Vec<(u32, i64)>,
    pub(super) pos: usize,
    /// Next unread posting `(len, doc)`.
    pub(super) next: Option<(u32, i64)>,
    /// Bound of the term's part in any document after the cursor (0 when done).
    pub(super) bound: f64,
}

impl Run<'_> {
    fn read_block(&mut self) -> Result<Option<RangeBlock>> {
        Ok(match self.rows.next()? {
            Some(row) => {
                let blob: Vec<u8> = row.get(1)?;
                Some((row.get(0)?, decode_postings(&blob)))
            }
            None => None,
        })
    }

    /// Loads the next length range's postings.
    fn fill(&mut self) -> Result<()> {
        self.class.clear();
        self.pos = 0;
        let first = match self.pending.take() {
            Some(block) => Some(block),
            None => self.read_block()?,
        };
        let Some((range, postings)) = first else {
            return Ok(());
        };
        self.class = postings;
        loop {
            match self.read_block()? {
                Some((r, postings)) if r == range => self.class.extend(postings),
                other => {
                    self.pending = other;
                    break;
                }
            }
        }
        self.class.sort_unstable();
        self.class.dedup();
        Ok(())
    }

    /// The term frequency bounding this run's postings.
    pub(super) fn tf_bound(&self) -> u32 {
        self.tf.unwrap_or(self.max_tf.max(TF_BUCKETS))
    }

    pub(super) fn advance(&mut self, avg_len: f64) -> Result<()> {
        if self.pos >= self.class.len() {
            self.fill()?;
        }
        self.next = self.class.get(self.pos).copied();
        self.pos = self.pos.saturating_add(1);
        self.bound = self.next.map_or(0.0, |(len, _)| {
            self.idf * tf_part(f64::from(self.tf_bound()), f64::from(len), avg_len)
        });
        Ok(())
    }
}
