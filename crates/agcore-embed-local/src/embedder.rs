//! [`LocalEmbedder`]: the [`EmbeddingModel`] running a local BERT-family
//! model on blocking threads.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agcore_llm::LlmError;
use agcore_llm::embedding::{EmbeddingBatch, EmbeddingModel, InputKind, check_batch};
use async_trait::async_trait;

use crate::engine::Engine;
use crate::error::LocalEmbedError;
use crate::options::{LocalEmbedderOptions, Pooling};

/// A sentence-embedding model (BERT family: all-MiniLM-L6-v2, E5, BGE, …)
/// loaded from a local Hugging-Face folder and run in process on the CPU
/// with candle. Nothing is downloaded.
///
/// Tokenising and the forward passes run on tokio's blocking threads
/// (`spawn_blocking`), never on the async executor, in batches of
/// [`LocalEmbedderOptions::batch_size`] texts sorted by length. Inputs longer
/// than [`LocalEmbedder::max_seq_len`] tokens are truncated. Vectors have
/// [`EmbeddingModel::dimensions`] components (`hidden_size`, 384 for
/// MiniLM-L6) and unit L2 norm unless normalisation is off.
///
/// Cheap to clone (the weights are shared).
///
/// # Examples
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use agcore_embed_local::LocalEmbedder;
/// use agcore_llm::embedding::{EmbeddingModel, InputKind};
///
/// let model = LocalEmbedder::load("models/all-MiniLM-L6-v2").await?;
/// assert_eq!(model.model_id(), "local:all-MiniLM-L6-v2");
/// let docs = vec!["We drove to Brighton for the weekend".to_owned()];
/// let batch = model.embed(&docs, InputKind::Document).await?;
/// let query = model.embed_query("the trip to the coast").await?;
/// let cosine: f32 = batch.vectors[0].iter().zip(&query).map(|(a, b)| a * b).sum();
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct LocalEmbedder {
    engine: Arc<Engine>,
    model_id: String,
    query_prefix: String,
    document_prefix: String,
    folder: PathBuf,
}

impl std::fmt::Debug for LocalEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalEmbedder")
            .field("model_id", &self.model_id)
            .field("folder", &self.folder)
            .field("dimensions", &self.engine.dimensions())
            .field("pooling", &self.engine.pooling())
            .field("normalize", &self.engine.normalize())
            .field("max_seq_len", &self.engine.max_seq_len())
            .field("batch_size", &self.engine.batch_size())
            .finish_non_exhaustive()
    }
}

impl LocalEmbedder {
    /// Loads the model in folder `dir` with default options: `config.json`,
    /// `tokenizer.json`, `model.safetensors`, and the sentence-transformers
    /// files when present (see [`LocalEmbedderOptions`]).
    ///
    /// # Errors
    /// As [`LocalEmbedder::load_with`].
    pub async fn load(dir: impl AsRef<Path>) -> Result<Self, LocalEmbedError> {
        Self::load_with(dir, LocalEmbedderOptions::default()).await
    }

    /// Loads the model in folder `dir` with `options`. The files are read and
    /// the weights built on a blocking thread.
    ///
    /// # Errors
    /// [`LocalEmbedError::MissingFile`] naming an absent required file;
    /// [`LocalEmbedError::Config`] for a malformed or unsupported
    /// configuration; [`LocalEmbedError::InvalidOption`] for a zero batch size
    /// or thread count or a `max_seq_len` the model cannot take;
    /// [`LocalEmbedError::Tokenizer`] for a bad `tokenizer.json`;
    /// [`LocalEmbedError::Candle`] when the weights do not fit the
    /// configuration.
    pub async fn load_with(
        dir: impl AsRef<Path>,
        options: LocalEmbedderOptions,
    ) -> Result<Self, LocalEmbedError> {
        let folder = dir.as_ref().to_owned();
        let started = Instant::now();
        let (engine, options, folder) = tokio::task::spawn_blocking(move || {
            let folder = std::fs::canonicalize(&folder).unwrap_or(folder);
            Engine::load(&folder, &options).map(|engine| (engine, options, folder))
        })
        .await
        .map_err(|e| LocalEmbedError::task(&e))??;
        let model_id = options.model_id.clone().unwrap_or_else(|| {
            let name = folder
                .file_name()
                .map_or_else(|| folder.to_string_lossy(), |n| n.to_string_lossy());
            format!("local:{name}")
        });
        tracing::debug!(
            model = %model_id,
            dimensions = engine.dimensions(),
            max_seq_len = engine.max_seq_len(),
            latency_ms = started.elapsed().as_millis() as u64,
            "local embedding model loaded"
        );
        Ok(Self {
            engine: Arc::new(engine),
            model_id,
            query_prefix: options.query_prefix,
            document_prefix: options.document_prefix,
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

    /// Embeds `texts` as `kind` on a blocking thread: one vector per text,
    /// in order.
    ///
    /// # Errors
    /// [`LocalEmbedError::Tokenizer`] or [`LocalEmbedError::Candle`] when a
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
            "local embedding"
        );
        Ok(vectors)
    }
}

/// `texts` with the prefix of `kind` put before each.
pub(crate) fn with_prefix(
    texts: &[String],
    kind: InputKind,
    query_prefix: &str,
    document_prefix: &str,
) -> Vec<String> {
    let prefix = match kind {
        InputKind::Query => query_prefix,
        InputKind::Document => document_prefix,
    };
    if prefix.is_empty() {
        texts.to_vec()
    } else {
        texts.iter().map(|t| format!("{prefix}{t}")).collect()
    }
}

#[async_trait]
impl EmbeddingModel for LocalEmbedder {
    fn model_id(&self) -> &str {
        &self.model_id
    }

    fn dimensions(&self) -> usize {
        self.engine.dimensions()
    }

    fn normalized(&self) -> bool {
        self.engine.normalize()
    }

    fn max_batch(&self) -> usize {
        self.engine.batch_size()
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
