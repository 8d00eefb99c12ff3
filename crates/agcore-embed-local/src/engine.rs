//! The synchronous core: a BERT encoder, its tokenizer and pooling, run in
//! length-sorted batches. Callers run it on a blocking thread.

use std::path::Path;

use agcore_llm::embedding::l2_normalize;
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::BertModel;
use tokenizers::Tokenizer;

use crate::batching::{PaddedBatch, embed_sorted, load_tokenizer, resolve_max_seq_len};
use crate::error::LocalEmbedError;
use crate::folder::{self, FolderConfig};
use crate::options::{LocalEmbedderOptions, Pooling};
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

        let max_seq_len = resolve_max_seq_len(
            options.max_seq_len,
            config.max_seq_length,
            config.bert.max_position_embeddings,
        )?;

        // Padding is done per batch (to the batch's longest text);
        // tokenizer.json files often pad every text to a fixed length.
        let fallback_pad = u32::try_from(config.bert.pad_token_id).unwrap_or(0);
        let (tokenizer, pad_id) = load_tokenizer(&tokenizer_path, max_seq_len, fallback_pad)?;

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
        embed_sorted(&self.tokenizer, texts, self.batch_size, |batch| {
            self.forward(batch)
        })
    }

    /// One forward pass over `batch`, padded to its longest text.
    fn forward(&self, batch: &[&tokenizers::Encoding]) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        let padded = PaddedBatch::new(batch, self.pad_id);
        let shape = (padded.rows, padded.width);
        let mask: Vec<f32> = padded.mask.iter().map(|&m| m as f32).collect();
        let ids = Tensor::from_vec(padded.ids, shape, &self.device)?;
        let types = Tensor::from_vec(padded.types, shape, &self.device)?;
        let mask = Tensor::from_vec(mask, shape, &self.device)?;
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
