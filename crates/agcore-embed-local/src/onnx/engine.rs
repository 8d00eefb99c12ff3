//! The synchronous ONNX core: one session per thread, the tokenizer and
//! pooling, run in length-sorted batches. Callers run it on a blocking thread.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use agcore_llm::embedding::l2_normalize;
use ort::session::{Session, SessionInputValue};
use ort::value::Tensor;
use serde::Deserialize;
use tokenizers::{Encoding, Tokenizer};

use super::options::OnnxEmbedderOptions;
use super::runtime;
use super::session::{build_session, model_file};
use crate::batching::{PaddedBatch, embed_sorted_parallel, load_tokenizer, resolve_max_seq_len};
use crate::error::LocalEmbedError;
use crate::folder;
use crate::options::Pooling;
use crate::pooling::pool_rows;

/// The position table assumed when the folder has no `config.json` (BERT's).
const DEFAULT_POSITIONS: usize = 512;

/// The few `config.json` fields ONNX needs; the file itself is optional.
#[derive(Debug, Default, Deserialize)]
struct OnnxConfig {
    #[serde(default)]
    max_position_embeddings: Option<usize>,
    #[serde(default)]
    pad_token_id: Option<u32>,
}

/// A loaded ONNX model, ready to embed on the calling thread.
pub(crate) struct OnnxEngine {
    /// One single-threaded session per worker; `Session::run` needs `&mut`,
    /// so concurrent calls take turns on each.
    sessions: Vec<Mutex<Session>>,
    tokenizer: Tokenizer,
    /// Whether the graph takes `token_type_ids`.
    token_types: bool,
    /// The output read: `last_hidden_state`, else the first.
    output: String,
    pooling: Pooling,
    normalize: bool,
    batch_size: usize,
    max_seq_len: usize,
    dimensions: usize,
    pad_id: u32,
    threads: usize,
    model_file: PathBuf,
}

impl OnnxEngine {
    /// Loads `dir` as `options` say (blocking: reads the model and builds
    /// one session per thread, ~0.3 s each for int8 MiniLM).
    pub(crate) fn load(dir: &Path, options: &OnnxEmbedderOptions) -> Result<Self, LocalEmbedError> {
        let common = &options.common;
        if common.batch_size == 0 {
            return Err(LocalEmbedError::InvalidOption(
                "batch_size must be at least 1".into(),
            ));
        }
        let threads = thread_count(common.threads)?;
        let model_file = model_file(dir, options.model_file.as_deref())?;
        let tokenizer_path = folder::required(dir, "tokenizer.json")?;
        let config_path = dir.join("config.json");
        let config: OnnxConfig = if config_path.is_file() {
            folder::parse(&config_path)?
        } else {
            OnnxConfig::default()
        };
        let pipeline = folder::read_pipeline(dir)?;
        let limit = config.max_position_embeddings.unwrap_or(DEFAULT_POSITIONS);
        let max_seq_len = resolve_max_seq_len(common.max_seq_len, pipeline.max_seq_length, limit)?;
        let (tokenizer, pad_id) = load_tokenizer(
            &tokenizer_path,
            max_seq_len,
            config.pad_token_id.unwrap_or(0),
        )?;

        let library = runtime::library_path(options.runtime_library.as_deref())?;
        let environment = runtime::environment(&library)?;
        let sessions = (0..threads)
            .map(|_| build_session(&environment, &model_file))
            .collect::<Result<Vec<Session>, LocalEmbedError>>()?;
        let session = sessions
            .first()
            .ok_or_else(|| LocalEmbedError::InvalidOption("threads must be at least 1".into()))?;
        let (token_types, output_name, dimensions) = graph_io(session, &model_file)?;

        let mut engine = Self {
            sessions: sessions.into_iter().map(Mutex::new).collect(),
            tokenizer,
            token_types,
            output: output_name,
            pooling: common.pooling.or(pipeline.pooling).unwrap_or(Pooling::Mean),
            normalize: common.normalize.or(pipeline.normalize).unwrap_or(true),
            batch_size: common.batch_size,
            max_seq_len,
            dimensions,
            pad_id,
            threads,
            model_file,
        };
        if engine.dimensions == 0 {
            let probe = engine.embed(vec![String::new()])?;
            engine.dimensions = probe.first().map_or(0, Vec::len);
        }
        Ok(engine)
    }

    pub(crate) fn dimensions(&self) -> usize {
        self.dimensions
    }

    pub(crate) fn normalize(&self) -> bool {
        self.normalize
    }

    pub(crate) fn pooling(&self) -> Pooling {
        self.pooling
    }

    pub(crate) fn max_seq_len(&self) -> usize {
        self.max_seq_len
    }

    pub(crate) fn batch_size(&self) -> usize {
        self.batch_size
    }

    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    pub(crate) fn model_file(&self) -> &Path {
        &self.model_file
    }

    /// Embeds `texts` (prefixes already applied): one vector per text, in
    /// order.
    pub(crate) fn embed(&self, texts: Vec<String>) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        embed_sorted_parallel(
            &self.tokenizer,
            texts,
            self.batch_size,
            self.sessions.len(),
            |worker, batch| self.forward(worker, batch),
        )
    }

    /// One run over `batch`, padded to its longest text, on the session of
    /// `worker`.
    fn forward(
        &self,
        worker: usize,
        batch: &[&Encoding],
    ) -> Result<Vec<Vec<f32>>, LocalEmbedError> {
        let padded = PaddedBatch::new(batch, self.pad_id);
        let (rows, width) = (padded.rows, padded.width);
        let shape = [rows, width];
        let err = |e: ort::Error| LocalEmbedError::onnx(&self.model_file, e);
        let widen = |v: &[u32]| v.iter().map(|&x| i64::from(x)).collect::<Vec<i64>>();
        let mut inputs: Vec<(Cow<'_, str>, SessionInputValue<'_>)> = vec![
            (
                "input_ids".into(),
                Tensor::from_array((shape, widen(&padded.ids)))
                    .map_err(err)?
                    .into(),
            ),
            (
                "attention_mask".into(),
                Tensor::from_array((shape, widen(&padded.mask)))
                    .map_err(err)?
                    .into(),
            ),
        ];
        if self.token_types {
            inputs.push((
                "token_type_ids".into(),
                Tensor::from_array((shape, widen(&padded.types)))
                    .map_err(err)?
                    .into(),
            ));
        }
        let slot = self
            .sessions
            .get(worker % self.sessions.len().max(1))
            .ok_or_else(|| LocalEmbedError::Runtime("no session".into()))?;
        let mut session = slot
            .lock()
            .map_err(|_| LocalEmbedError::Runtime("the session lock is poisoned".into()))?;
        let outputs = session.run(inputs).map_err(err)?;
        let value = outputs.get(&self.output).ok_or_else(|| {
            LocalEmbedError::config(&self.model_file, format!("no output `{}`", self.output))
        })?;
        let (out_shape, hidden) = value.try_extract_tensor::<f32>().map_err(err)?;
        let dim = match **out_shape {
            [r, w, d] if usize::try_from(r) == Ok(rows) && usize::try_from(w) == Ok(width) => {
                usize::try_from(d).unwrap_or(0)
            }
            _ => {
                return Err(LocalEmbedError::config(
                    &self.model_file,
                    format!(
                        "output `{}` has shape {:?} for inputs of shape {shape:?}",
                        self.output,
                        out_shape.to_vec()
                    ),
                ));
            }
        };
        let mut vectors = pool_rows(hidden, &padded.mask, rows, width, dim, self.pooling);
        if self.normalize {
            for v in &mut vectors {
                l2_normalize(v);
            }
        }
        Ok(vectors)
    }
}

/// The session count: `threads`, or one per available core.
fn thread_count(threads: Option<usize>) -> Result<usize, LocalEmbedError> {
    match threads {
        Some(0) => Err(LocalEmbedError::InvalidOption(
            "threads must be at least 1".into(),
        )),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, usize::from)),
    }
}

/// Reads the graph's inputs and output: whether it takes `token_type_ids`,
/// the output holding per-token states, and its hidden size (0 when the
/// graph declares it dynamic).
///
/// # Errors
/// [`LocalEmbedError::Config`] when `input_ids` or `attention_mask` is
/// missing, or the output is not `(batch, tokens, hidden)`.
fn graph_io(
    session: &Session,
    model_file: &Path,
) -> Result<(bool, String, usize), LocalEmbedError> {
    let inputs: Vec<&str> = session.inputs().iter().map(|i| i.name()).collect();
    for required in ["input_ids", "attention_mask"] {
        if !inputs.contains(&required) {
            return Err(LocalEmbedError::config(
                model_file,
                format!("the graph has no `{required}` input (inputs: {inputs:?})"),
            ));
        }
    }
    let token_types = inputs.contains(&"token_type_ids");
    let output = session
        .outputs()
        .iter()
        .find(|o| o.name() == "last_hidden_state")
        .or_else(|| session.outputs().first())
        .ok_or_else(|| LocalEmbedError::config(model_file, "the graph has no output"))?;
    let declared = output.dtype().tensor_shape().map(|s| s.to_vec());
    let output_name = output.name().to_owned();
    let dimensions = match declared.as_deref() {
        Some([_, _, hidden]) if *hidden > 0 => usize::try_from(*hidden).unwrap_or(0),
        Some([_, _, _]) => 0, // dynamic: learnt from a first run below
        other => {
            return Err(LocalEmbedError::config(
                model_file,
                format!(
                    "output `{output_name}` has shape {other:?}; per-token states \
                         (batch, tokens, hidden) are needed"
                ),
            ));
        }
    };
    Ok((token_types, output_name, dimensions))
}
