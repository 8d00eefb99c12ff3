//! [`OnnxEmbedder`]: the [`EmbeddingModel`] running an ONNX export of a
//! BERT-family model with ONNX Runtime on blocking threads.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, InputKind, check_batch};
use async_trait::async_trait;

use super::engine::OnnxEngine;
use super::options::OnnxEmbedderOptions;
use crate::embedder::with_prefix;
use crate::error::LocalEmbedError;
use crate::options::Pooling;

/// A sentence-embedding model (BERT family: all-MiniLM-L6-v2, E5, BGE, …)
/// exported to ONNX (f32 or int8) and run in process on the CPU by ONNX
/// Runtime, a shared library loaded at run time (`ORT_DYLIB_PATH` or
/// [`OnnxEmbedderOptions::runtime_library`]). Nothing is downloaded.
///
/// The folder holds the `.onnx` file (one of
/// [`ONNX_MODEL_FILES`](crate::ONNX_MODEL_FILES), or
/// [`OnnxEmbedderOptions::model_file`]) and `tokenizer.json`; `config.json`
/// (`max_position_embeddings`, `pad_token_id`) and the sentence-transformers
/// files (pooling, `Normalize`, `max_seq_length`) are read when present, as
/// for [`LocalEmbedder`](crate::LocalEmbedder). The graph must take
/// `input_ids` and `attention_mask` (and `token_type_ids` when it declares
/// it), all `i64` of shape `(batch, tokens)`, and give per-token states
/// `(batch, tokens, hidden)` as `last_hidden_state` or its first output.
///
/// Tokenising and inference run on tokio's blocking threads
/// (`spawn_blocking`) in batches of [`LocalEmbedderOptions::batch_size`]
/// texts sorted by length. The embedder holds `threads` sessions (default:
/// one per core), each running on one thread; the batches of a call are
/// shared among them, so a large call uses every core and a single query
/// one. Each session runs one batch at a time. Vectors have
/// [`EmbeddingModel::dimensions`] components (384 for MiniLM-L6) and unit L2
/// norm unless normalisation is off.
///
/// Cheap to clone (the session is shared).
///
/// [`LocalEmbedderOptions::batch_size`]: crate::LocalEmbedderOptions::batch_size
///
/// # Examples
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use agcore_embed_local::{OnnxEmbedder, OnnxEmbedderOptions};
/// use agcore_llm::embedding::EmbeddingModel;
///
/// let options = OnnxEmbedderOptions::new().runtime_library("/opt/ort/libonnxruntime.so.1.32.0");
/// let model = OnnxEmbedder::load_with("models/all-MiniLM-L6-v2-onnx-int8", options).await?;
/// assert_eq!(model.model_id(), "onnx:all-MiniLM-L6-v2-onnx-int8");
/// let query = model.embed_query("the trip to the coast").await?; // 384 × f32, unit norm
/// # Ok(()) }
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "onnx")))]
#[derive(Clone)]
pub struct OnnxEmbedder {
    engine: Arc<OnnxEngine>,
    model_id: String,
    query_prefix: String,
    document_prefix: String,
    folder: PathBuf,
}

impl std::fmt::Debug for OnnxEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OnnxEmbedder")
            .field("model_id", &self.model_id)
            .field("model_file", &self.engine.model_file())
            .field("dimensions", &self.engine.dimensions())
            .field("pooling", &self.engine.pooling())
            .field("normalize", &self.engine.normalize())
            .field("max_seq_len", &self.engine.max_seq_len())
            .field("batch_size", &self.engine.batch_size())
            .field("threads", &self.engine.threads())
            .finish_non_exhaustive()
    }
}

impl OnnxEmbedder {
    /// Loads the model in folder `dir` with default options; the runtime
    /// library comes from `ORT_DYLIB_PATH`.
    ///
    /// # Errors
    /// As [`OnnxEmbedder::load_with`].
    pub async fn load(dir: impl AsRef<Path>) -> Result<Self, LocalEmbedError> {
        Self::load_with(dir, OnnxEmbedderOptions::default()).await
    }

    /// Loads the model in folder `dir` with `options`, on a blocking thread.
    ///
    /// # Errors
    /// [`LocalEmbedError::MissingFile`] naming an absent `.onnx` file or
    /// `tokenizer.json`; [`LocalEmbedError::Runtime`] when no runtime library
    /// is named or it does not load (the message says to set
    /// `ORT_DYLIB_PATH`); [`LocalEmbedError::Config`] for malformed
    /// configuration files or a graph without the inputs and output above;
    /// [`LocalEmbedError::InvalidOption`] for a zero batch size or thread
    /// count or a `max_seq_len` the model cannot take;
    /// [`LocalEmbedError::Tokenizer`] for a bad `tokenizer.json`;
    /// [`LocalEmbedError::Onnx`] when ONNX Runtime refuses the model.
    pub async fn load_with(
        dir: impl AsRef<Path>,
        options: OnnxEmbedderOptions,
    ) -> Result<Self, LocalEmbedError> {
        let folder = dir.as_ref().to_owned();
        let started = Instant::now();
        let (engine, options, folder) = tokio::task::spawn_blocking(move || {
            let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
            OnnxEngine::load(&folder, &options).map(|engine| (engine, options, folder))
        })
        .await
        .map_err(|e| LocalEmbedError::task(&e))??;
        let common = options.common;
        let model_id = common.model_id.clone().unwrap_or_else(|| {
            let name = folder
                .file_name()
                .map_or_else(|| folder.to_string_lossy(), |n| n.to_string_lossy());
            format!("onnx:{name}")
        });
        tracing::debug!(
            model = %model_id,
            dimensions = engine.dimensions(),
            max_seq_len = engine.max_seq_len(),
            threads = engine.threads(),
            latency_ms = started.elapsed().as_millis() as u64,
            "ONNX embedding model loaded"
        );
        Ok(Self {
            engine: Arc::new(engine),
            model_id,
            query_prefix: common.query_prefix,
            document_prefix: common.document_prefix,
            folder,
        })
    }

    /// The longest input in tokens (special tokens included); longer texts
    /// are truncated.
    pub fn max_seq_len(&self) -> usize {
        self.engine.max_seq_len()
    }

    /// The pooling in use.
    pub fn pooling(&self) -> Pooling {
        self.engine.pooling()
    }

    /// The model folder (canonical path).
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The `.onnx` file running.
    pub fn model_file(&self) -> &Path {
        self.engine.model_file()
    }

    /// Sessions running batches in parallel (one thread each).
    pub fn threads(&self) -> usize {
        self.engine.threads()
    }

    /// Embeds `texts` as `kind` on a blocking thread: one vector per text,
    /// in order.
    ///
    /// # Errors
    /// [`LocalEmbedError::Tokenizer`] or [`LocalEmbedError::Onnx`] when a
    /// text cannot be processed; [`LocalEmbedError::Task`] when the runtime
    /// shuts down during the call.
    pub async fn embed_texts(
        &self,
        texts: &[String],
        kind: InputKind,
    ) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs = with_prefix(texts, kind, &self.query_prefix, &self.document_prefix);
        let engine = Arc::clone(&self.engine);
        let started = Instant::now();
        let vectors = tokio::task::spawn_blocking(move || engine.embed(inputs))
            .await
            .map_err(|e| LocalEmbedError::task(&e))??;
        tracing::debug!(
            model = %self.model_id,
            texts = texts.len(),
            latency_ms = started.elapsed().as_millis() as u64,
            "ONNX embedding"
        );
        Ok(vectors)
    }
}

#[async_trait]
impl EmbeddingModel for OnnxEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.engine.dimensions()
    }

    fn normalized(&self) -> bool {
        self.engine.normalize()
    }

    /// One forward pass of [`batch_size`](crate::LocalEmbedderOptions::batch_size)
    /// texts per session: a call this large keeps every session busy (a
    /// caller batching by this value, like the background embedding queue,
    /// would otherwise run one session, one core, at a time).
    fn max_batch(&self) -> usize {
        self.engine
            .batch_size()
            .saturating_mul(self.engine.threads().max(1))
    }

    async fn embed(&self, texts: &[String], kind: InputKind) -> Result<EmbeddingBatch, LlmError> {
        let vectors = self.embed_texts(texts, kind).await?;
        check_batch(&vectors, texts.len(), self.dimensions())?;
        Ok(EmbeddingBatch {
            vectors,
            prompt_tokens: 0,
        })
    }
}
