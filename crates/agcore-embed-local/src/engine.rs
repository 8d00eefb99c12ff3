//! The synchronous core: a BERT encoder, its tokenizer and pooling, run in
//! length-sorted batches. Callers run it on a blocking thread.

use std::path::Path;

use agcore_llm::embedding::l2_normalize;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use tokenizers::{Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

use crate::error::LocalEmbedError;
use crate::folder::{self, FolderConfig};
use crate::options::{LocalEmbedderOptions, MAX_SEQ_LEN_CAP, Pooling};
use crate::pooling::pool;

/// A loaded model, ready to embed on the calling thread.
pub(crate) struct Engine {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    normalize: bool,
    batch_size: usize,
    max_seq_len: usize,
    dimensions: usize,
    pad_id: u32,
    threads: Option<rayon::ThreadPool>,
    device: Device,
}

impl Engine {
    /// Loads `dir` as `options` say (blocking: reads ~100 MB for MiniLM).
    pub(crate) fn load(
        dir: &Path,
        options: &LocalEmbedderOptions,
    ) -> Result<Self, LocalEmbedError> {
        if options.batch_size == 0 {
            return Err(LocalEmbedError::InvalidOption(
                "batch_size must be at least 1".into(),
            ));
        }
        let config: FolderConfig = folder::read_config(dir)?;
        let tokenizer_path = folder::required(dir, "tokenizer.json")?;
        let weights_path = folder::required(dir, "model.safetensors")?;

        let limit = config.bert.max_position_embeddings;
        let max_seq_len = match options.max_seq_len {
            Some(n) if n > limit => {
                return Err(LocalEmbedError::InvalidOption(format!(
                    "max_seq_len {n} exceeds the model's {limit} positions"
                )));
            }
            Some(n) => n,
            None => config
                .max_seq_length
                .unwrap_or(limit)
                .min(limit)
                .min(MAX_SEQ_LEN_CAP),
        };

        let mut tokenizer = Tokenizer::from_file(&tokenizer_path).map_err(|e| {
            LocalEmbedError::tokenizer(format!("{}: {e}", tokenizer_path.display()))
        })?;
        let added = tokenizer
            .get_post_processor()
            .map_or(0, |p| tokenizers::PostProcessor::added_tokens(p, false));
        if max_seq_len <= added {
            return Err(LocalEmbedError::InvalidOption(format!(
                "max_seq_len {max_seq_len} leaves no room beside the {added} special tokens"
            )));
        }
        // Padding is done per batch below (to the batch's longest text);
        // tokenizer.json files often pad every text to a fixed length.
        let pad_id = tokenizer
            .get_padding()
            .map_or(u32::try_from(config.bert.pad_token_id).unwrap_or(0), |p| {
                p.pad_id
            });
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: max_seq_len,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(LocalEmbedError::tokenizer)?;

        let threads = match options.threads {
            None => None,
            Some(0) => {
                return Err(LocalEmbedError::InvalidOption(
                    "threads must be at least 1".into(),
                ));
            }
            Some(n) => Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(n)
                    .thread_name(|i| format!("agcore-embed-{i}"))
                    .build()
                    .map_err(|e| LocalEmbedError::ThreadPool(e.to_string()))?,
            ),
        };

        let device = Device::Cpu;
        let weights = folder::read(&weights_path)?;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)?;
        let model = BertModel::load(vb, &config.bert)?;

        Ok(Self {
            model,
            tokenizer,
            pooling: options.pooling.or(config.pooling).unwrap_or(Pooling::Mean),
            normalize: options.normalize.or(config.normalize).unwrap_or(true),
            batch_size: options.batch_size,
            max_seq_len,
            dimensions: config.bert.hidden_size,
            pad_id,
            threads,
            device,
        })
    }

    pub(crate) fn dimensions(&self) -> usize {
        self.dimensions
    }

    pub(crate) fn normalize(&self) -> bool {
        self.normalize
    }

    pub(crate) fn pooling(&self) -> Pooling {
        self.pooling
    }

    pub(crate) fn max_seq_len(&self) -> usize {
        self.max_seq_len
    }

    pub(crate) fn batch_size(&self) -> usize {
        self.batch_size
    }

    /// Embeds `texts` (prefixes already applied): one vector per text, in
    /// order. Runs in the embedder's own pool when `threads` was set.
    pub(crate) fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        match &self.threads {
            Some(pool) => pool.install(|| self.embed_here(texts)),
            None => self.embed_here(texts),
        }
    }

    fn embed_here(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        let count = texts.len();
        let encodings = self
            .tokenizer
            .encode_batch(texts, true)
            .map_err(LocalEmbedError::tokenizer)?;
        // Sorting by length keeps texts of similar length in one batch, so
        // little compute goes to padding.
        let mut order: Vec<usize> = (0..count).collect();
        order.sort_by_key(|&i| encodings.get(i).map_or(0, tokenizers::Encoding::len));

        let mut out: Vec<Vec<f32>> = vec![Vec::new(); count];
        for chunk in order.chunks(self.batch_size) {
            let batch: Vec<&tokenizers::Encoding> =
                chunk.iter().filter_map(|&i| encodings.get(i)).collect();
            let vectors = self.forward(&batch)?;
            for (&i, vector) in chunk.iter().zip(vectors) {
                if let Some(slot) = out.get_mut(i) {
                    *slot = vector;
                }
            }
        }
        Ok(out)
    }

    /// One forward pass over `batch`, padded to its longest text.
    fn forward(&self, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        let rows = batch.len();
        let width = batch.iter().map(|e| e.len()).max().unwrap_or(0).max(1);
        let mut ids = Vec::with_capacity(rows * width);
        let mut types = Vec::with_capacity(rows * width);
        let mut mask = Vec::with_capacity(rows * width);
        for encoding in batch {
            let real = encoding.len();
            ids.extend_from_slice(encoding.get_ids());
            types.extend_from_slice(encoding.get_type_ids());
            mask.extend(std::iter::repeat_n(1.0f32, real));
            ids.extend(std::iter::repeat_n(self.pad_id, width - real));
            types.extend(std::iter::repeat_n(0u32, width - real));
            mask.extend(std::iter::repeat_n(0.0f32, width - real));
        }
        let ids = Tensor::from_vec(ids, (rows, width), &self.device)?;
        let types = Tensor::from_vec(types, (rows, width), &self.device)?;
        let mask = Tensor::from_vec(mask, (rows, width), &self.device)?;
        let hidden = self.model.forward(&ids, &types, Some(&mask))?;
        let mut vectors = pool(&hidden, &mask, self.pooling)?.to_vec2::<f32>()?;
        if self.normalize {
            for v in &mut vectors {
                l2_normalize(v);
            }
        }
        Ok(vectors)
    }
}
