//! Reading a Hugging-Face / sentence-transformers model folder: which files
//! it holds and what its small JSON configuration files ask for.
//!
//! Files read: `config.json` (BERT hyper-parameters), `tokenizer.json`,
//! `model.safetensors`, and when present `modules.json` (the
//! sentence-transformers pipeline), the pooling module's `config.json`
//! (`1_Pooling/config.json` by default) and `sentence_bert_config.json`
//! (`max_seq_length`).

use std::path::{Path, PathBuf};

use candle_transformers::models::bert;
use serde::Deserialize;

use crate::error::LocalEmbedError;
use crate::options::Pooling;

/// What the folder's configuration files say.
#[derive(Debug, Clone)]
pub(crate) struct FolderConfig {
    /// `config.json`.
    pub bert: bert::Config,
    /// The pooling module's mode, when the folder has one.
    pub pooling: Option<Pooling>,
    /// Whether `modules.json` lists `Normalize` (`None` without the file).
    pub normalize: Option<bool>,
    /// `max_seq_length` of `sentence_bert_config.json`.
    pub max_seq_length: Option<usize>,
}

/// The path of `name` in `dir`, or [`LocalEmbedError::MissingFile`].
pub(crate) fn required(dir: &Path, name: &str) -> Result<PathBuf, LocalEmbedError> {
    let path = dir.join(name);
    if path.is_file() {
        Ok(path)
    } else {
        Err(LocalEmbedError::MissingFile { path })
    }
}

/// Reads a whole file, naming it in errors.
pub(crate) fn read(path: &Path) -> Result<Vec<u8>, LocalEmbedError> {
    std::fs::read(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => LocalEmbedError::MissingFile {
            path: path.to_owned(),
        },
        _ => LocalEmbedError::Io {
            path: path.to_owned(),
            source,
        },
    })
}

pub(crate) fn parse<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<T, LocalEmbedError> {
    let bytes = read(path)?;
    serde_json::from_slice(&bytes).map_err(|e| LocalEmbedError::config(path, e.to_string()))
}

/// Reads the configuration files of the folder `dir`.
///
/// # Errors
/// [`LocalEmbedError::MissingFile`] without `config.json`;
/// [`LocalEmbedError::Config`] for malformed JSON, a pooling mode other than
/// mean or CLS, or a `modules.json` module after pooling other than
/// `Normalize` (a `Dense` projection is not implemented).
pub(crate) fn read_config(dir: &Path) -> Result<FolderConfig, LocalEmbedError> {
    let config_path = required(dir, "config.json")?;
    let bert: bert::Config = parse(&config_path)?;
    if bert.hidden_size == 0 || bert.max_position_embeddings == 0 {
        return Err(LocalEmbedError::config(
            &config_path,
            "hidden_size and max_position_embeddings must be at least 1",
        ));
    }

    let pipeline = read_pipeline(dir)?;
    Ok(FolderConfig {
        bert,
        pooling: pipeline.pooling,
        normalize: pipeline.normalize,
        max_seq_length: pipeline.max_seq_length,
    })
}

/// What the sentence-transformers files of a folder ask for (every field
/// `None` when its file is absent).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    /// The pooling module's mode.
    pub pooling: Option<Pooling>,
    /// Whether `modules.json` lists `Normalize`.
    pub normalize: Option<bool>,
    /// `max_seq_length` of `sentence_bert_config.json`.
    pub max_seq_length: Option<usize>,
}

/// Reads `modules.json`, the pooling module's `config.json` and
/// `sentence_bert_config.json` of `dir`, each when present.
///
/// # Errors
/// [`LocalEmbedError::Config`] for malformed JSON, a pooling mode other than
/// mean or CLS, or a module after pooling other than `Normalize`.
pub(crate) fn read_pipeline(dir: &Path) -> Result<Pipeline, LocalEmbedError> {
    let mut pooling_dir = PathBuf::from("1_Pooling");
    let mut normalize = None;
    let modules_path = dir.join("modules.json");
    if modules_path.is_file() {
        let modules: Vec<Module> = parse(&modules_path)?;
        normalize = Some(false);
        for module in &modules {
            let kind = module.kind.rsplit('.').next().unwrap_or_default();
            match kind {
                "Transformer" => {}
                "Pooling" => pooling_dir = PathBuf::from(&module.path),
                "Normalize" => normalize = Some(true),
                other => {
                    return Err(LocalEmbedError::config(
                        &modules_path,
                        format!("module `{other}` ({}) is not supported", module.kind),
                    ));
                }
            }
        }
    }

    let pooling_path = dir.join(&pooling_dir).join("config.json");
    let pooling = if pooling_path.is_file() {
        let modes: PoolingConfig = parse(&pooling_path)?;
        Some(modes.pooling(&pooling_path)?)
    } else {
        None
    };

    let st_path = dir.join("sentence_bert_config.json");
    let max_seq_length = if st_path.is_file() {
        parse::<SentenceBertConfig>(&st_path)?.max_seq_length
    } else {
        None
    };

    Ok(Pipeline {
        pooling,
        normalize,
        max_seq_length,
    })
}

/// One entry of `modules.json`.
#[derive(Debug, Deserialize)]
struct Module {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    path: String,
}

/// `sentence_bert_config.json`.
#[derive(Debug, Deserialize)]
struct SentenceBertConfig {
    #[serde(default)]
    max_seq_length: Option<usize>,
}

/// A pooling module's `config.json` (sentence-transformers `Pooling`).
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PoolingConfig {
    pooling_mode_cls_token: bool,
    pooling_mode_mean_tokens: bool,
    pooling_mode_max_tokens: bool,
    pooling_mode_mean_sqrt_len_tokens: bool,
    pooling_mode_weightedmean_tokens: bool,
    pooling_mode_lasttoken: bool,
}

impl PoolingConfig {
    fn pooling(&self, path: &Path) -> Result<Pooling, LocalEmbedError> {
        let modes = [
            ("cls_token", self.pooling_mode_cls_token),
            ("mean_tokens", self.pooling_mode_mean_tokens),
            ("max_tokens", self.pooling_mode_max_tokens),
            (
                "mean_sqrt_len_tokens",
                self.pooling_mode_mean_sqrt_len_tokens,
            ),
            ("weightedmean_tokens", self.pooling_mode_weightedmean_tokens),
            ("lasttoken", self.pooling_mode_lasttoken),
        ];
        let on: Vec<&str> = modes.iter().filter(|m| m.1).map(|m| m.0).collect();
        match on.as_slice() {
            ["cls_token"] => Ok(Pooling::Cls),
            ["mean_tokens"] => Ok(Pooling::Mean),
            [] => Err(LocalEmbedError::config(path, "no pooling mode is set")),
            other => Err(LocalEmbedError::config(
                path,
                format!(
                    "pooling mode {} is not supported (only one of mean_tokens or cls_token)",
                    other.join(" + ")
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONFIG: &str = r#"{"vocab_size": 30522, "hidden_size": 384, "num_hidden_layers": 6,
        "num_attention_heads": 12, "intermediate_size": 1536, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "max_position_embeddings": 512, "type_vocab_size": 2,
        "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0}"#;

    fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in files {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn a_bare_folder_has_no_pooling_or_normalize_opinion() {
        let dir = folder(&[("config.json", CONFIG)]);
        let config = read_config(dir.path()).unwrap();
        assert_eq!(config.bert.hidden_size, 384);
        assert_eq!(config.pooling, None);
        assert_eq!(config.normalize, None);
        assert_eq!(config.max_seq_length, None);
    }

    #[test]
    fn sentence_transformers_files_choose_pooling_normalize_and_length() {
        let modules = r#"[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},
            {"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"}]"#;
        let dir = folder(&[
            ("config.json", CONFIG),
            ("modules.json", modules),
            (
                "1_Pooling/config.json",
                r#"{"pooling_mode_cls_token": true}"#,
            ),
            ("sentence_bert_config.json", r#"{"max_seq_length": 256}"#),
        ]);
        let config = read_config(dir.path()).unwrap();
        assert_eq!(config.pooling, Some(Pooling::Cls));
        assert_eq!(config.normalize, Some(false), "no Normalize module listed");
        assert_eq!(config.max_seq_length, Some(256));
    }

    #[test]
    fn unsupported_configurations_are_named() {
        let missing = tempfile::tempdir().unwrap();
        let err = read_config(missing.path()).unwrap_err();
        assert!(
            matches!(&err, LocalEmbedError::MissingFile { path } if path.ends_with("config.json"))
        );

        let dir = folder(&[("config.json", "{not json")]);
        let err = read_config(dir.path()).unwrap_err().to_string();
        assert!(err.contains("config.json"), "{err}");

        let dir = folder(&[
            ("config.json", CONFIG),
            (
                "1_Pooling/config.json",
                r#"{"pooling_mode_max_tokens": true}"#,
            ),
        ]);
        let err = read_config(dir.path()).unwrap_err().to_string();
        assert!(err.contains("max_tokens"), "{err}");

        let modules = r#"[{"path":"2_Dense","type":"sentence_transformers.models.Dense"}]"#;
        let dir = folder(&[("config.json", CONFIG), ("modules.json", modules)]);
        let err = read_config(dir.path()).unwrap_err().to_string();
        assert!(err.contains("Dense"), "{err}");
    }
}
