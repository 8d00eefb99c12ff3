//! [`LocalEmbedderOptions`] and [`Pooling`]: how a local model is run.

use serde::{Deserialize, Serialize};

/// How one vector is made from a text's per-token hidden states
/// (sentence-transformers' `Pooling` module).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Pooling {
    /// The mean of the hidden states of the real tokens (attention mask 1),
    /// special tokens included, padding excluded (`pooling_mode_mean_tokens`;
    /// all-MiniLM-L6-v2, E5).
    Mean,
    /// The hidden state of the first token, `[CLS]` (`pooling_mode_cls_token`;
    /// BGE).
    Cls,
}

/// Options of [`LocalEmbedder::load_with`](crate::LocalEmbedder::load_with).
/// Every option has a default taken from the model folder or listed below.
///
/// # Examples
/// ```
/// use agcore_embed_local::{LocalEmbedderOptions, Pooling};
///
/// // multilingual-e5-small: E5's prefixes, 512 tokens, mean pooling.
/// let options = LocalEmbedderOptions::new()
///     .query_prefix("query: ")
///     .document_prefix("passage: ")
///     .max_seq_len(512)
///     .pooling(Pooling::Mean)
///     .batch_size(16);
/// assert_eq!(options.batch_size_value(), 16);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LocalEmbedderOptions {
    pub(crate) max_seq_len: Option<usize>,
    pub(crate) batch_size: usize,
    pub(crate) query_prefix: String,
    pub(crate) document_prefix: String,
    pub(crate) threads: Option<usize>,
    pub(crate) pooling: Option<Pooling>,
    pub(crate) normalize: Option<bool>,
    pub(crate) model_id: Option<String>,
}

/// Default texts per forward pass.
pub const DEFAULT_BATCH_SIZE: usize = 32;

/// The longest input, in tokens, any default allows (BERT's position table).
pub const MAX_SEQ_LEN_CAP: usize = 512;

impl Default for LocalEmbedderOptions {
    fn default() -> Self {
        Self {
            max_seq_len: None,
            batch_size: DEFAULT_BATCH_SIZE,
            query_prefix: String::new(),
            document_prefix: String::new(),
            threads: None,
            pooling: None,
            normalize: None,
            model_id: None,
        }
    }
}

impl LocalEmbedderOptions {
    /// The defaults: sequence length from the folder, batches of
    /// [`DEFAULT_BATCH_SIZE`], no prefixes, every core, pooling and
    /// normalisation from the folder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Longest input in tokens, special tokens included; longer texts are
    /// truncated (their end is dropped). Default: `max_seq_length` of
    /// `sentence_bert_config.json`, else `max_position_embeddings` of
    /// `config.json`, at most [`MAX_SEQ_LEN_CAP`]. Must not exceed
    /// `max_position_embeddings`.
    pub fn max_seq_len(mut self, tokens: usize) -> Self {
        self.max_seq_len = Some(tokens);
        self
    }

    /// Texts per forward pass (≥ 1; default [`DEFAULT_BATCH_SIZE`]). Larger
    /// batches amortise overhead; texts are sorted by length before batching
    /// so each batch pads little.
    pub fn batch_size(mut self, texts: usize) -> Self {
        self.batch_size = texts;
        self
    }

    /// Text put before every query, e.g. `"query: "` for E5 or BGE's
    /// `"Represent this sentence for searching relevant passages: "`.
    /// Default: none.
    pub fn query_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.query_prefix = prefix.into();
        self
    }

    /// Text put before every document, e.g. `"passage: "` for E5. Default:
    /// none.
    pub fn document_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.document_prefix = prefix.into();
        self
    }

    /// Threads for the model's matrix products (≥ 1), in a pool owned by the
    /// embedder. Default: the process-wide pool, one thread per core.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads);
        self
    }

    /// Pooling, overriding `1_Pooling/config.json` (default when that file
    /// is absent: [`Pooling::Mean`]).
    pub fn pooling(mut self, pooling: Pooling) -> Self {
        self.pooling = Some(pooling);
        self
    }

    /// Whether vectors are scaled to unit L2 norm, overriding `modules.json`
    /// (default: `true`, or whether `modules.json` lists a `Normalize`
    /// module when the folder has one).
    pub fn normalize(mut self, normalize: bool) -> Self {
        self.normalize = Some(normalize);
        self
    }

    /// The model id recorded with every vector. Default: `local:<folder
    /// name>`, e.g. `local:all-MiniLM-L6-v2`.
    pub fn model_id(mut self, id: impl Into<String>) -> Self {
        self.model_id = Some(id.into());
        self
    }

    /// The batch size set.
    pub fn batch_size_value(&self) -> usize {
        self.batch_size
    }
}
