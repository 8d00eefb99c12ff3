//! Files and sessions: which `.onnx` file a folder holds and how a session
//! on it is built.

use std::path::{Path, PathBuf};

use ort::environment::Environment;
use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;

use crate::error::LocalEmbedError;

/// The `.onnx` file names looked for in a model folder, in this order.
pub const ONNX_MODEL_FILES: &[&str] = &["model.onnx", "model_quantized.onnx", "onnx/model.onnx"];

/// A session on `model_file` with one intra-op thread: the embedder runs
/// one session per core on different batches, which scales better on a
/// small, shared CPU than one session splitting each operator.
pub(super) fn build_session(
    environment: &Environment,
    model_file: &Path,
) -> Result<Session, LocalEmbedError> {
    let onnx_err = |e: &dyn std::fmt::Display| LocalEmbedError::onnx(model_file, e);
    Session::builder(environment)
        .map_err(|e| onnx_err(&e))?
        .with_optimization_level(GraphOptimizationLevel::All)
        .map_err(|e| onnx_err(&e))?
        .with_intra_threads(1)
        .map_err(|e| onnx_err(&e))?
        .with_inter_threads(1)
        .map_err(|e| onnx_err(&e))?
        // Idle threads block instead of spinning: a spinning thread takes a
        // core from whatever runs beside the agent.
        .with_intra_op_spinning(false)
        .map_err(|e| onnx_err(&e))?
        .commit_from_file(model_file)
        .map_err(|e| onnx_err(&e))
}

/// The model file: `explicit` (relative to `dir` unless absolute), else the
/// first of [`ONNX_MODEL_FILES`] in `dir`.
pub(super) fn model_file(dir: &Path, explicit: Option<&Path>) -> Result<PathBuf, LocalEmbedError> {
    if let Some(file) = explicit {
        let path = dir.join(file);
        return if path.is_file() {
            Ok(path)
        } else {
            Err(LocalEmbedError::MissingFile { path })
        };
    }
    ONNX_MODEL_FILES
        .iter()
        .map(|name| dir.join(name))
        .find(|path| path.is_file())
        .ok_or_else(|| LocalEmbedError::MissingFile {
            path: dir.join(ONNX_MODEL_FILES.first().copied().unwrap_or("model.onnx")),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_file_is_found_or_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = model_file(dir.path(), None).unwrap_err();
        assert!(err.to_string().contains("model.onnx"), "{err}");
        std::fs::write(dir.path().join("model_quantized.onnx"), b"x").unwrap();
        let found = model_file(dir.path(), None).unwrap();
        assert!(found.ends_with("model_quantized.onnx"));
        std::fs::write(dir.path().join("model.onnx"), b"x").unwrap();
        assert!(
            model_file(dir.path(), None)
                .unwrap()
                .ends_with("model.onnx")
        );
        let err = model_file(dir.path(), Some(Path::new("other.onnx"))).unwrap_err();
        assert!(
            matches!(&err, LocalEmbedError::MissingFile { path } if path.ends_with("other.onnx"))
        );
        let named = model_file(dir.path(), Some(Path::new("model_quantized.onnx"))).unwrap();
        assert!(named.ends_with("model_quantized.onnx"));
    }
}
