//! What both backends share between text and forward pass: the tokenizer set
//! up for per-batch padding and truncation, texts sorted by length into
//! batches, and each batch padded into flat row-major arrays.

use std::path::Path;

use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::error::LocalEmbedError;
use crate::options::MAX_SEQ_LEN_CAP;

/// The truncation length in tokens: `requested` when set (at most `limit`,
/// the model's position table), else the folder's `max_seq_length`, else
/// `limit`, capped at [`MAX_SEQ_LEN_CAP`].
///
/// # Errors
/// [`LocalEmbedError::InvalidOption`] when `requested` exceeds `limit`.
pub(crate) fn resolve_max_seq_len(
    requested: Option<usize>,
    folder: Option<usize>,
    limit: usize,
) -> Result<usize, LocalEmbedError> {
    match requested {
        Some(n) if n > limit => Err(LocalEmbedError::InvalidOption(format!(
            "max_seq_len {n} exceeds the model's {limit} positions"
        ))),
        Some(n) => Ok(n),
        None => Ok(folder.unwrap_or(limit).min(limit).min(MAX_SEQ_LEN_CAP)),
    }
}

/// Loads `tokenizer.json` at `path` for embedding: its own padding removed
/// (batches are padded to their longest text instead; MiniLM's file pads
/// every text to 128 tokens) and truncation at `max_seq_len` tokens, special
/// tokens included. Returns the tokenizer and the padding token id (the
/// file's, else `fallback_pad_id`).
///
/// # Errors
/// [`LocalEmbedError::Tokenizer`] for a bad file;
/// [`LocalEmbedError::InvalidOption`] when `max_seq_len` leaves no room
/// beside the special tokens.
pub(crate) fn load_tokenizer(
    path: &Path,
    max_seq_len: usize,
    fallback_pad_id: u32,
) -> Result<(Tokenizer, u32), LocalEmbedError> {
    let mut tokenizer = Tokenizer::from_file(path)
        .map_err(|e| LocalEmbedError::tokenizer(format!("{}: {e}", path.display())))?;
    let added = tokenizer
        .get_post_processor()
        .map_or(0, |p| tokenizers::PostProcessor::added_tokens(p, false));
    if max_seq_len <= added {
        return Err(LocalEmbedError::InvalidOption(format!(
            "max_seq_len {max_seq_len} leaves no room beside the {added} special tokens"
        )));
    }
    let pad_id = tokenizer
        .get_padding()
        .map_or(fallback_pad_id, |p| p.pad_id);
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            direction: TruncationDirection::Right,
            max_length: max_seq_len,
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        }))
        .map_err(LocalEmbedError::tokenizer)?;
    Ok((tokenizer, pad_id))
}

/// Tokenises `texts`, sorts them by token count so each batch of at most
/// `batch_size` texts pads little, runs `forward` on every batch and returns
/// one vector per text in the input order.
///
/// # Errors
/// [`LocalEmbedError::Tokenizer`], or the first error of `forward`.
pub(crate) fn embed_sorted<F>(
    tokenizer: &Tokenizer,
    texts: Vec<String>,
    batch_size: usize,
    mut forward: F,
) -> Result<Vec<Vec<f32>>, LocalEmbedError>
where
    F: FnMut(&[&Encoding]) -> Result<Vec<Vec<f32>>, LocalEmbedError>,
{
    let count = texts.len();
    let encodings = tokenizer
        .encode_batch(texts, true)
        .map_err(LocalEmbedError::tokenizer)?;
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&i| encodings.get(i).map_or(0, Encoding::len));

    let mut out: Vec<Vec<f32>> = vec![Vec::new(); count];
    for chunk in order.chunks(batch_size.max(1)) {
        let batch: Vec<&Encoding> = chunk.iter().filter_map(|&i| encodings.get(i)).collect();
        let vectors = forward(&batch)?;
        for (&i, vector) in chunk.iter().zip(vectors) {
            if let Some(slot) = out.get_mut(i) {
                *slot = vector;
            }
        }
    }
    Ok(out)
}

/// What a worker of [`embed_sorted_parallel`] returns: (text index, vector)
/// pairs.
type WorkerResult = Result<Vec<(usize, Vec<f32>)>, LocalEmbedError>;

/// As [`embed_sorted`], with the batches shared among `workers` scoped
/// threads (at most one per batch; a single batch runs on the calling
/// thread). `forward` gets the worker's index (`0..workers`) beside each
/// batch.
///
/// # Errors
/// [`LocalEmbedError::Tokenizer`], the first error of `forward`, or
/// [`LocalEmbedError::Task`] when a worker panicked.
#[cfg_attr(not(feature = "onnx"), allow(dead_code))]
pub(crate) fn embed_sorted_parallel<F>(
    tokenizer: &Tokenizer,
    texts: Vec<String>,
    batch_size: usize,
    workers: usize,
    forward: F,
) -> Result<Vec<Vec<f32>>, LocalEmbedError>
where
    F: Fn(usize, &[&Encoding]) -> Result<Vec<Vec<f32>>, LocalEmbedError> + Sync,
{
    let count = texts.len();
    let encodings = tokenizer
        .encode_batch(texts, true)
        .map_err(LocalEmbedError::tokenizer)?;
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by_key(|&i| encodings.get(i).map_or(0, Encoding::len));
    let batches: Vec<&[usize]> = order.chunks(batch_size.max(1)).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    // One worker: pulls batches until none is left, returns (text index, vector).
    let work = |worker: usize| -> WorkerResult {
        let mut done = Vec::new();
        while let Some(chunk) = batches.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
        {
            let batch: Vec<&Encoding> = chunk.iter().filter_map(|&i| encodings.get(i)).collect();
            done.extend(chunk.iter().copied().zip(forward(worker, &batch)?));
        }
        Ok(done)
    };
    let workers = workers.clamp(1, batches.len().max(1));
    let parts: Vec<WorkerResult> = if workers == 1 {
        vec![work(0)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..workers)
                .map(|w| {
                    let work = &work;
                    scope.spawn(move || work(w))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(LocalEmbedError::Task {
                            message: "an embedding worker panicked".into(),
                            cancelled: false,
                        })
                    })
                })
                .collect()
        })
    };
    let mut out: Vec<Vec<f32>> = vec![Vec::new(); count];
    for part in parts {
        for (i, vector) in part? {
            if let Some(slot) = out.get_mut(i) {
                *slot = vector;
            }
        }
    }
    Ok(out)
}

/// A batch padded to its longest text, as flat row-major `(rows, width)`
/// arrays.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PaddedBatch {
    /// Texts in the batch.
    pub rows: usize,
    /// Tokens per row (the longest text's count, at least 1).
    pub width: usize,
    /// Token ids, padding positions hold the padding id.
    pub ids: Vec<u32>,
    /// Token type (segment) ids, 0 on padding.
    pub types: Vec<u32>,
    /// Attention mask: 1 on real tokens, 0 on padding.
    pub mask: Vec<u32>,
}

impl PaddedBatch {
    /// Pads `batch` with `pad_id` to its longest encoding.
    pub(crate) fn new(batch: &[&Encoding], pad_id: u32) -> Self {
        let rows = batch.len();
        let width = batch.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for encoding in batch {
            let real = encoding.len();
            ids.extend_from_slice(encoding.get_ids());
            types.extend_from_slice(encoding.get_type_ids());
            mask.extend(std::iter::repeat_n(1u32, real));
            ids.extend(std::iter::repeat_n(pad_id, width - real));
            types.extend(std::iter::repeat_n(0u32, width - real));
            mask.extend(std::iter::repeat_n(0u32, width - real));
        }
        Self {
            rows,
            width,
            ids,
            types,
            mask,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_padded_to_its_longest_text() {
        let encoding = |ids: Vec<u32>| {
            let n = ids.len();
            Encoding::new(
                ids,
                vec![0; n],
                vec![String::new(); n],
                vec![None; n],
                vec![(0, 0); n],
                vec![0; n],
                vec![1; n],
                Vec::new(),
                Default::default(),
            )
        };
        let long = encoding(vec![101, 7, 8, 102]);
        let short = encoding(vec![101, 102]);
        let padded = PaddedBatch::new(&[&short, &long], 0);
        assert_eq!((padded.rows, padded.width), (2, 4));
        assert_eq!(padded.ids, vec![101, 102, 0, 0, 101, 7, 8, 102]);
        assert_eq!(padded.mask, vec![1, 1, 0, 0, 1, 1, 1, 1]);
        assert_eq!(padded.types, vec![0; 8]);
        let empty = PaddedBatch::new(&[], 0);
        assert_eq!((empty.rows, empty.width), (0, 1));
    }
}
