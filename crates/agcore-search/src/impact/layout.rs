//! The layout of an impact-ordered index: run codes, postings and their
//! block codec, the documents it takes and the collection statistics a
//! search starts from.

/// Term-frequency buckets: `tf` 1, 2 and 3 each have their own runs; larger
/// frequencies share the last bucket (bounded with the term's largest `tf`).
pub const TF_BUCKETS: u32 = 4;
/// Most postings in one block.
pub const BLOCK_DOCS: usize = 512;
/// The context tf bucket's multiplier in a run code (see [`run_code`]).
pub const CONTEXT_STRIDE: u32 = 8;

/// A posting: `(key length, document)`.
pub type Posting = (u32, i64);

/// The run of a posting with `tf` occurrences in the own text and `ctf` in
/// the context field: `min(tf, TF_BUCKETS) + CONTEXT_STRIDE · min(ctf,
/// TF_BUCKETS)`. Without context it is the plain tf bucket (1..=4).
#[inline]
#[must_use]
pub fn run_code(tf: u32, ctf: u32) -> u32 {
    tf.min(TF_BUCKETS) + CONTEXT_STRIDE * ctf.min(TF_BUCKETS)
}

/// The (tf bucket, context tf bucket) of a run code.
#[inline]
#[must_use]
pub fn split_code(code: u32) -> (u32, u32) {
    (code % CONTEXT_STRIDE, code / CONTEXT_STRIDE)
}

/// A document as the index takes it: its number, its terms (space-joined
/// analysed tokens) and its context field — the analysed terms of its
/// neighbours, joined by spaces — or `None` when it belongs to no sequence
/// (it then ranks by plain BM25, and does not count in the mean context
/// length).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldDoc<'a> {
    /// The document number.
    pub doc: i64,
    /// Its own terms, space-joined.
    pub terms: &'a str,
    /// Its context field's terms, space-joined (`None`: no context field).
    pub context: Option<&'a str>,
}

impl<'a> FieldDoc<'a> {
    /// A document without a context field.
    #[must_use]
    pub fn plain(doc: i64, terms: &'a str) -> Self {
        Self {
            doc,
            terms,
            context: None,
        }
    }
}

/// Collection statistics of one scope (a separately ranked collection).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ScopeStats {
    /// Documents (N).
    pub docs: f64,
    /// Mean own length over all documents (0 when there are none).
    pub avg_len: f64,
    /// Mean context length over the documents with a context field (0 when
    /// there are none).
    pub avg_context_len: f64,
}

impl ScopeStats {
    /// The statistics of `docs` documents of `tokens` own tokens in all, of
    /// which `grouped` have a context field of `context_tokens` tokens in all
    /// (negative counts count as 0).
    #[allow(clippy::cast_precision_loss)]
    #[must_use]
    pub fn from_counts(docs: i64, tokens: i64, grouped: i64, context_tokens: i64) -> Self {
        let mean = |total: i64, count: i64| {
            if count > 0 {
                total.max(0) as f64 / count as f64
            } else {
                0.0
            }
        };
        Self {
            docs: docs.max(0) as f64,
            avg_len: mean(tokens, docs),
            avg_context_len: mean(context_tokens, grouped),
        }
    }
}

/// The document length and distinct terms (with frequencies) of a
/// space-joined term list, skipping its first `skip` tokens.
#[must_use]
pub fn term_frequencies(terms: &str, skip: usize) -> (u32, Vec<(&str, u32)>) {
    let mut counts: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
    let mut len = 0u32;
    for token in terms.split(' ').filter(|t| !t.is_empty()).skip(skip) {
        len = len.saturating_add(1);
        let c = counts.entry(token).or_insert(0);
        *c = c.saturating_add(1);
    }
    (len, counts.into_iter().collect())
}

/// Postings as a block value: 12 bytes each (key length then document,
/// little-endian).
#[must_use]
pub fn encode_postings(postings: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 12);
    for (len, doc) in postings {
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&doc.to_le_bytes());
    }
    out
}

/// The postings of a block value (a trailing partial posting is ignored).
#[inline]
#[must_use]
pub fn decode_postings(blob: &[u8]) -> Vec<Posting> {
    blob.chunks_exact(12)
        .filter_map(|c| {
            let (len, doc) = c.split_at(4);
            Some((
                u32::from_le_bytes(len.try_into().ok()?),
                i64::from_le_bytes(doc.try_into().ok()?),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn term_frequencies_skip_and_count() {
        let (len, mut tfs) = term_frequencies("scope a b a 记忆", 1);
        tfs.sort_unstable();
        assert_eq!(len, 4);
        assert_eq!(tfs, [("a", 2), ("b", 1), ("记忆", 1)]);
        assert_eq!(term_frequencies("", 0).0, 0);
    }

    #[test]
    fn postings_round_trip_and_codes_split() {
        let p = [(3, 1), (0, -2), (u32::MAX, i64::MAX)];
        assert_eq!(decode_postings(&encode_postings(&p)), p);
        assert_eq!(split_code(run_code(2, 7)), (2, TF_BUCKETS));
        assert_eq!(run_code(9, 0), TF_BUCKETS);
    }

    /// Run bounds rest on this: a term's part never rises along a run
    /// (longer documents, same or lower frequency), whatever the mean length.
    #[test]
    fn fts5_tf_part_falls_with_length_for_any_mean() {
        for avg in [1.0, 5.0, 12.0, 300.0] {
            for tf in 1..6 {
                for len in tf..60 {
                    let (t, l) = (f64::from(tf), f64::from(len));
                    let part = |t, l| crate::fts5_tf_part(t, l, avg);
                    assert!(part(t, l) >= part(t, l + 1.0));
                    assert!(part(t + 1.0, l) >= part(t, l));
                }
            }
        }
    }

    #[test]
    fn fts5_idf_matches_sqlite() {
        let idf = crate::Bm25::fts5_idf;
        assert!((idf(100.0, 10.0) - (90.5f64 / 10.5).ln()).abs() < 1e-12);
        assert!((idf(10.0, 9.0) - 1e-6).abs() < 1e-18);
    }

    #[test]
    fn scope_stats_means() {
        let s = ScopeStats::from_counts(4, 10, 2, 6);
        assert_eq!((s.docs, s.avg_len, s.avg_context_len), (4.0, 2.5, 3.0));
        assert_eq!(ScopeStats::from_counts(0, 0, 0, 0), ScopeStats::default());
    }
}
