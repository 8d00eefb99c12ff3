//! [`OnnxEmbedderOptions`]: the shared options plus what only ONNX needs.

use std::path::PathBuf;

use crate::options::LocalEmbedderOptions;

/// Options of [`OnnxEmbedder::load_with`](crate::OnnxEmbedder::load_with):
/// the options both backends share ([`LocalEmbedderOptions`]: prefixes,
/// batch size, `max_seq_len`, threads, pooling, normalisation, model id)
/// plus the ONNX file and the ONNX Runtime library.
///
/// `threads` sets how many single-threaded ONNX Runtime sessions run
/// batches in parallel (default: one per core,
/// [`std::thread::available_parallelism`]); a single batch (one query) runs
/// on one of them.
///
/// # Examples
/// ```
/// use agcore_embed_local::{LocalEmbedderOptions, OnnxEmbedderOptions};
///
/// let options = OnnxEmbedderOptions::new()
///     .common(LocalEmbedderOptions::new().batch_size(32).threads(2))
///     .model_file("model_quantized.onnx")
///     .runtime_library("/opt/onnxruntime/libonnxruntime.so.1.32.0");
/// assert_eq!(options.common_options().batch_size_value(), 32);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OnnxEmbedderOptions {
    pub(crate) common: LocalEmbedderOptions,
    pub(crate) model_file: Option<PathBuf>,
    pub(crate) runtime_library: Option<PathBuf>,
}

impl OnnxEmbedderOptions {
    /// The defaults: [`LocalEmbedderOptions::default`], the first of
    /// [`ONNX_MODEL_FILES`](crate::ONNX_MODEL_FILES) found in the folder, and the
    /// runtime library named by `ORT_DYLIB_PATH`.
    pub fn new() -> Self {
        Self::default()
    }

    /// The options both backends share.
    pub fn common(mut self, options: LocalEmbedderOptions) -> Self {
        self.common = options;
        self
    }

    /// The `.onnx` file to run: a path relative to the model folder, or
    /// absolute. Default: the first of
    /// [`ONNX_MODEL_FILES`](crate::ONNX_MODEL_FILES) present in the folder.
    pub fn model_file(mut self, file: impl Into<PathBuf>) -> Self {
        self.model_file = Some(file.into());
        self
    }

    /// The ONNX Runtime shared library (`libonnxruntime.so.1.x`, ≥ 1.17).
    /// Default: the `ORT_DYLIB_PATH` environment variable. The first library
    /// loaded serves the whole process.
    pub fn runtime_library(mut self, path: impl Into<PathBuf>) -> Self {
        self.runtime_library = Some(path.into());
        self
    }

    /// The shared options set.
    pub fn common_options(&self) -> &LocalEmbedderOptions {
        &self.common
    }
}

impl From<LocalEmbedderOptions> for OnnxEmbedderOptions {
    fn from(common: LocalEmbedderOptions) -> Self {
        Self::new().common(common)
    }
}
