//! Which engine runs a `local` model folder: candle, or ONNX Runtime when
//! the folder also holds an ONNX export of the same model and the runtime
//! is installed (several times faster on CPU for the same vectors).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The engine of `provider = "local"` (`[embedding] engine`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LocalEngine {
    /// ONNX Runtime when the folder holds an fp32 ONNX export of its model
    /// (`model.onnx` or `onnx/model.onnx`) and `ORT_DYLIB_PATH` names an
    /// existing runtime library (feature `local-embeddings-onnx`); candle
    /// otherwise. Vectors keep the model id `local:<folder name>`.
    #[default]
    Auto,
    /// Always candle.
    Candle,
    /// Always ONNX Runtime (an error when the folder has no ONNX export or
    /// the runtime cannot be loaded).
    Onnx,
}

/// ONNX exports of a folder's own model, in order of preference: full
/// precision only (a quantised file gives other vectors, so it is a model
/// of its own: `provider = "onnx"`).
const SAME_MODEL_EXPORTS: &[&str] = &["model.onnx", "onnx/model.onnx"];

/// The ONNX file `engine` runs for folder `dir`, or `None` for candle.
#[cfg_attr(not(feature = "local-embeddings"), allow(dead_code))]
pub(crate) fn onnx_file(engine: LocalEngine, dir: &Path) -> Option<PathBuf> {
    let export = || {
        SAME_MODEL_EXPORTS
            .iter()
            .map(|f| dir.join(f))
            .find(|p| p.is_file())
    };
    match engine {
        LocalEngine::Candle => None,
        LocalEngine::Onnx => Some(export().unwrap_or_else(|| dir.join("model.onnx"))),
        LocalEngine::Auto if cfg!(feature = "local-embeddings-onnx") && runtime_present() => {
            export()
        }
        LocalEngine::Auto => None,
    }
}

/// Whether `ORT_DYLIB_PATH` names an existing file.
#[cfg_attr(not(feature = "local-embeddings"), allow(dead_code))]
fn runtime_present() -> bool {
    std::env::var_os("ORT_DYLIB_PATH").is_some_and(|p| Path::new(&p).is_file())
}

/// The model id of folder `dir` when no `model` is configured, as candle
/// records it: `local:<folder name>`.
#[cfg_attr(not(feature = "local-embeddings"), allow(dead_code))]
pub(crate) fn local_model_id(dir: &Path) -> String {
    let folder = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let name = folder
        .file_name()
        .map_or_else(|| folder.to_string_lossy(), |n| n.to_string_lossy());
    format!("local:{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candle_is_kept_without_an_export_and_on_request() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(onnx_file(LocalEngine::Auto, dir.path()), None);
        assert_eq!(
            onnx_file(LocalEngine::Onnx, dir.path()),
            Some(dir.path().join("model.onnx"))
        );
        std::fs::create_dir(dir.path().join("onnx")).unwrap();
        std::fs::write(dir.path().join("onnx/model.onnx"), b"x").unwrap();
        assert_eq!(onnx_file(LocalEngine::Candle, dir.path()), None);
        assert_eq!(
            onnx_file(LocalEngine::Onnx, dir.path()),
            Some(dir.path().join("onnx/model.onnx"))
        );
        let name = dir
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert_eq!(local_model_id(dir.path()), format!("local:{name}"));
    }
}
