//! The ONNX Runtime backend (feature `onnx`): [`OnnxEmbedder`] runs ONNX
//! exports of the same models as [`LocalEmbedder`](crate::LocalEmbedder),
//! sharing its tokenizer handling, options, batching and pooling.

mod embedder;
mod engine;
mod options;
mod runtime;

pub use embedder::OnnxEmbedder;
pub use engine::ONNX_MODEL_FILES;
pub use options::OnnxEmbedderOptions;
