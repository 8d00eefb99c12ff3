//! [`LocalEmbedError`]: what can go wrong loading or running a local model.

use std::path::PathBuf;

use agcore_llm::LlmError;
use thiserror::Error;

/// An error of `agcore-embed-local`.
///
/// Converts into [`LlmError`] (the error of
/// [`EmbeddingModel`](agcore_llm::embedding::EmbeddingModel)) with `?`.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum LocalEmbedError {
    /// A file the model folder must hold is not there.
    #[error("model file not found: {}", path.display())]
    MissingFile {
        /// The path that was looked for.
        path: PathBuf,
    },
    /// A model file exists but could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A configuration file (`config.json`, `1_Pooling/config.json`,
    /// `modules.json`, `sentence_bert_config.json`) is malformed or asks for
    /// something this crate does not implement.
    #[error("bad model configuration in {}: {message}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// An option given to the loader is out of range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// `tokenizer.json` could not be loaded or a text could not be tokenised.
    #[error("tokenizer error: {0}")]
    Tokenizer(String),
    /// The tensor library failed (loading weights or running the model).
    #[error("model error: {0}")]
    Candle(#[from] candle_core::Error),
    /// ONNX Runtime is not available: no library named, a path that is not a
    /// file, a library that does not load, or a failed environment set-up.
    /// The message says what to set (`ORT_DYLIB_PATH`).
    #[error("ONNX Runtime unavailable: {0}")]
    Runtime(String),
    /// ONNX Runtime failed on a model (building the session or running it).
    #[error("ONNX model error in {}: {message}", path.display())]
    Onnx {
        /// The `.onnx` file.
        path: PathBuf,
        /// ONNX Runtime's message.
        message: String,
    },
    /// The thread pool for the `threads` option could not be built.
    #[error("cannot start the model's thread pool: {0}")]
    ThreadPool(String),
    /// The blocking task running the model was cancelled (the runtime is
    /// shutting down) or panicked.
    #[error("the embedding task did not finish: {message}")]
    Task {
        /// Why.
        message: String,
        /// Whether the task was cancelled rather than panicking.
        cancelled: bool,
    },
}

impl LocalEmbedError {
    /// Whether the same call may succeed if tried again later: only an
    /// interrupted or cancelled task and transient I/O errors. Missing files,
    /// bad configuration, tokenizer and model errors are not.
    pub fn is_recoverable(&self) -> bool {
        match self {
            Self::Task { cancelled, .. } => *cancelled,
            Self::Io { source, .. } => matches!(
                source.kind(),
                std::io::ErrorKind::Interrupted
                    | std::io::ErrorKind::WouldBlock
                    | std::io::ErrorKind::TimedOut
                    | std::io::ErrorKind::ResourceBusy
            ),
            _ => false,
        }
    }

    pub(crate) fn tokenizer(err: impl std::fmt::Display) -> Self {
        Self::Tokenizer(err.to_string())
    }

    pub(crate) fn config(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        Self::Config {
            path: path.into(),
            message: message.into(),
        }
    }

    #[cfg_attr(not(feature = "onnx"), allow(dead_code))]
    pub(crate) fn onnx(path: &std::path::Path, err: impl std::fmt::Display) -> Self {
        Self::Onnx {
            path: path.to_owned(),
            message: err.to_string(),
        }
    }

    pub(crate) fn task(err: &tokio::task::JoinError) -> Self {
        Self::Task {
            message: err.to_string(),
            cancelled: err.is_cancelled(),
        }
    }
}

impl From<LocalEmbedError> for LlmError {
    /// Loading problems become [`LlmError::Config`]; a cancelled task
    /// [`LlmError::Cancelled`]; transient I/O [`LlmError::Connection`] (so it
    /// stays recoverable); tokenizer and model failures on input
    /// [`LlmError::InvalidRequest`].
    fn from(err: LocalEmbedError) -> Self {
        let message = err.to_string();
        match err {
            LocalEmbedError::Task {
                cancelled: true, ..
            } => LlmError::Cancelled,
            LocalEmbedError::Io { .. } if err.is_recoverable() => LlmError::Connection(message),
            LocalEmbedError::MissingFile { .. }
            | LocalEmbedError::Io { .. }
            | LocalEmbedError::Config { .. }
            | LocalEmbedError::InvalidOption(_)
            | LocalEmbedError::Runtime(_)
            | LocalEmbedError::ThreadPool(_) => LlmError::Config(message),
            LocalEmbedError::Tokenizer(_)
            | LocalEmbedError::Candle(_)
            | LocalEmbedError::Onnx { .. }
            | LocalEmbedError::Task { .. } => LlmError::InvalidRequest { message },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_transient_failures_are_recoverable() {
        let missing = LocalEmbedError::MissingFile {
            path: "m/config.json".into(),
        };
        assert!(!missing.is_recoverable());
        assert!(missing.to_string().contains("m/config.json"));
        let busy = LocalEmbedError::Io {
            path: "m/model.safetensors".into(),
            source: std::io::Error::from(std::io::ErrorKind::Interrupted),
        };
        assert!(busy.is_recoverable());
        assert!(LlmError::from(busy).is_recoverable());
        let cancelled = LocalEmbedError::Task {
            message: "cancelled".into(),
            cancelled: true,
        };
        assert!(cancelled.is_recoverable());
        assert!(matches!(LlmError::from(cancelled), LlmError::Cancelled));
        let config = LlmError::from(LocalEmbedError::config("m/config.json", "no hidden_size"));
        assert!(matches!(&config, LlmError::Config(m) if m.contains("no hidden_size")));
        assert!(!config.is_recoverable());
        let runtime = LocalEmbedError::Runtime("set ORT_DYLIB_PATH".into());
        assert!(!runtime.is_recoverable());
        assert!(
            matches!(LlmError::from(runtime), LlmError::Config(m) if m.contains("ORT_DYLIB_PATH"))
        );
        let onnx = LocalEmbedError::onnx("m/model.onnx".as_ref(), "bad graph");
        assert!(onnx.to_string().contains("m/model.onnx"), "{onnx}");
        assert!(matches!(
            LlmError::from(onnx),
            LlmError::InvalidRequest { .. }
        ));
        let tok = LlmError::from(LocalEmbedError::tokenizer("bad input"));
        assert!(matches!(tok, LlmError::InvalidRequest { .. }));
    }
}
