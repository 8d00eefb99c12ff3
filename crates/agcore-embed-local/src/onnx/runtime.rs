//! The ONNX Runtime shared library and the process-wide environment.
//!
//! ONNX Runtime allows one environment per process and `ort` keeps the first
//! library it loads, so both are set up once here and shared by every
//! [`OnnxEmbedder`](crate::OnnxEmbedder).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use ort::environment::Environment;

use crate::error::LocalEmbedError;

/// The environment variable naming the runtime library.
pub(crate) const DYLIB_ENV: &str = "ORT_DYLIB_PATH";

/// The environment and the library it was made from, once one load worked.
static RUNTIME: Mutex<Option<(Environment, PathBuf)>> = Mutex::new(None);

/// The library to load: `explicit`, else `ORT_DYLIB_PATH`, as an absolute
/// path to an existing file.
///
/// # Errors
/// [`LocalEmbedError::Runtime`] naming what to set when neither is given,
/// or the path and where it came from when no file is there.
pub(crate) fn library_path(explicit: Option<&Path>) -> Result<PathBuf, LocalEmbedError> {
    let (path, source) = match explicit {
        Some(path) => (path.to_owned(), "the runtime_library option"),
        None => match std::env::var_os(DYLIB_ENV) {
            Some(value) if !value.is_empty() => (PathBuf::from(value), DYLIB_ENV),
            _ => {
                return Err(LocalEmbedError::Runtime(format!(
                    "no ONNX Runtime library: set {DYLIB_ENV} to libonnxruntime.so (≥ 1.17; \
                     scripts/models.sh install unpacks 1.32 from PyPI onnxruntime) or pass \
                     OnnxEmbedderOptions::runtime_library"
                )));
            }
        },
    };
    match std::fs::canonicalize(&path) {
        Ok(absolute) if absolute.is_file() => Ok(absolute),
        _ => Err(LocalEmbedError::Runtime(format!(
            "ONNX Runtime library {} (from {source}) is not a file",
            path.display()
        ))),
    }
}

/// The process-wide environment, loading the library at `path` first when
/// no load has worked yet.
///
/// # Errors
/// [`LocalEmbedError::Runtime`] when the library cannot be loaded (not a
/// shared library, no `OrtGetApiBase`, a version older than `ort` needs) or
/// the environment cannot be created.
pub(crate) fn environment(path: &Path) -> Result<Environment, LocalEmbedError> {
    let mut slot = RUNTIME
        .lock()
        .map_err(|_| LocalEmbedError::Runtime("the ONNX Runtime set-up lock is poisoned".into()))?;
    if let Some((environment, loaded)) = slot.as_ref() {
        if loaded != path {
            tracing::warn!(
                requested = %path.display(),
                loaded = %loaded.display(),
                "ONNX Runtime is already loaded from another library; using it"
            );
        }
        return Ok(environment.clone());
    }
    let builder = ort::init_from(path).map_err(|e| {
        LocalEmbedError::Runtime(format!(
            "cannot load ONNX Runtime from {}: {e}",
            path.display()
        ))
    })?;
    let environment = builder
        .with_name("agcore-embed-local")
        .with_telemetry(false)
        .build()
        .map_err(|e| LocalEmbedError::Runtime(format!("cannot create the environment: {e}")))?;
    *slot = Some((environment.clone(), path.to_owned()));
    tracing::debug!(library = %path.display(), "ONNX Runtime loaded");
    Ok(environment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_names_its_source() {
        let dir = tempfile::tempdir().unwrap();
        let absent = dir.path().join("libonnxruntime.so");
        let err = library_path(Some(&absent)).unwrap_err().to_string();
        assert!(err.contains("libonnxruntime.so"), "{err}");
        assert!(err.contains("runtime_library"), "{err}");
        let err = library_path(Some(dir.path())).unwrap_err().to_string();
        assert!(err.contains("is not a file"), "{err}");
    }

    #[test]
    fn a_file_that_is_not_a_library_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fake = dir.path().join("libonnxruntime.so");
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let path = library_path(Some(&fake)).unwrap();
        assert!(path.is_absolute());
        // Refused whether or not another test loaded the real library first:
        // a failed load leaves nothing behind, a done load is reused.
        if RUNTIME.lock().unwrap().is_none() {
            let err = environment(&path).unwrap_err();
            assert!(matches!(err, LocalEmbedError::Runtime(_)), "{err}");
            assert!(err.to_string().contains("cannot load"), "{err}");
        }
    }
}
