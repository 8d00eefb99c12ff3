//! The ONNX Runtime backend (feature `onnx`): [`OnnxEmbedder`] runs ONNX
//! exports of the same models as [`LocalEmbedder`](crate::LocalEmbedder),
//! sharing its tokenizer handling, options, batching and pooling.

mod embedder;
mod engine;
mod options;
mod runtime;
mod session;

pub use embedder::OnnxEmbedder;
pub use options::OnnxEmbedderOptions;
pub use session::ONNX_MODEL_FILES;
