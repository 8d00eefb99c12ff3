//! The ONNX Runtime backend on int8 all-MiniLM-L6-v2 through the public API:
//! shapes, norms, batching, real-sentence similarities, options and errors,
//! and agreement with the candle backend on the f32 model.
//!
//! Needs `AGCORE_TEST_ONNX_MINILM_DIR` and `ORT_DYLIB_PATH` (and
//! `AGCORE_TEST_MINILM_DIR` for the comparison): `scripts/models.sh
//! install`, then `scripts/models.sh env`. Without them each test prints why
//! and returns, except under `CI=true` or `AGCORE_REQUIRE_SERVICES=1`, where
//! it fails.
#![cfg(test)]
#![cfg(feature = "onnx")]

use std::path::PathBuf;

use agcore_embed_local::{
    LocalEmbedError, LocalEmbedder, LocalEmbedderOptions, OnnxEmbedder, OnnxEmbedderOptions,
    Pooling,
};
use agcore_llm::embedding::{EmbeddingModel, InputKind};
use agcore_memory_testkit::service_url;
use tokio::sync::OnceCell;

use crate::support;

use support::{cosine, max_diff, norm, strings};

static MODEL: OnceCell<Option<OnnxEmbedder>> = OnceCell::const_new();

/// The ONNX folder, when it and the runtime library are configured.
fn dir() -> Option<PathBuf> {
    let dir = service_url("AGCORE_TEST_ONNX_MINILM_DIR")?;
    service_url("ORT_DYLIB_PATH")?;
    Some(PathBuf::from(dir))
}

/// The default-options model, loaded once per test binary.
async fn model() -> Option<&'static OnnxEmbedder> {
    MODEL
        .get_or_init(|| async {
            let dir = dir()?;
            Some(OnnxEmbedder::load(&dir).await.unwrap())
        })
        .await
        .as_ref()
}

const SENTENCES: &[&str] = &[
    "We drove to Brighton for the weekend",
    "The quarterly report is due on Friday and still needs the sales figures",
    "My sister adopted a grey cat from the shelter last spring",
    "Rust's borrow checker rejects two mutable references to the same value",
    "Rain",
    "The recipe calls for two eggs, a cup of flour and a pinch of salt, mixed until smooth",
    "He plays the violin in a community orchestra every Thursday evening",
    "Interest rates rose again this month",
    "A man is playing a guitar on stage",
    "记忆系统需要支持中文检索",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_have_384_unit_norm_components() {
    let Some(model) = model().await else { return };
    assert_eq!(model.model_id(), "onnx:all-MiniLM-L6-v2-onnx-int8");
    assert_eq!(model.dimensions(), 384);
    assert!(model.normalized());
    assert_eq!(model.pooling(), Pooling::Mean, "from 1_Pooling/config.json");
    assert_eq!(model.max_seq_len(), 256, "from sentence_bert_config.json");
    assert!(model.model_file().ends_with("model.onnx"));
    assert!(model.threads() >= 1);
    let batch = model
        .embed(&strings(SENTENCES), InputKind::Document)
        .await
        .unwrap();
    assert_eq!(batch.vectors.len(), SENTENCES.len());
    for v in &batch.vectors {
        assert_eq!(v.len(), 384);
        assert!(v.iter().all(|x| x.is_finite()));
        assert!((norm(v) - 1.0).abs() < 1e-5, "norm {}", norm(v));
    }
    let empty = model.embed(&[], InputKind::Document).await.unwrap();
    assert!(empty.vectors.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_equals_texts_embedded_one_by_one() {
    let Some(model) = model().await else { return };
    let batch = model
        .embed(&strings(SENTENCES), InputKind::Document)
        .await
        .unwrap();
    for (text, batched) in SENTENCES.iter().zip(&batch.vectors) {
        let alone = model
            .embed(&strings(&[text]), InputKind::Document)
            .await
            .unwrap();
        let diff = max_diff(batched, &alone.vectors[0]);
        assert!(diff < 1e-4, "{text:?} differs by {diff} in a batch");
    }
    // Batches of two shared by two sessions give the same vectors, in order.
    let Some(dir) = dir() else { return };
    let options = LocalEmbedderOptions::new().batch_size(2).threads(2);
    let parallel = OnnxEmbedder::load_with(&dir, options.into()).await.unwrap();
    assert_eq!(parallel.threads(), 2);
    // A call of max_batch texts is one batch per session.
    assert_eq!(parallel.max_batch(), 4);
    let split = parallel
        .embed(&strings(SENTENCES), InputKind::Document)
        .await
        .unwrap();
    for ((text, a), b) in SENTENCES.iter().zip(&split.vectors).zip(&batch.vectors) {
        let diff = max_diff(a, b);
        assert!(diff < 1e-4, "{text:?} differs by {diff} across sessions");
    }
    // Padding beside a ~200-token text does not move a short one either.
    let long = "The committee reviewed every proposal in detail before the vote. ".repeat(16);
    let padded = model
        .embed(&[long, "Rain".to_owned()], InputKind::Document)
        .await
        .unwrap();
    let alone = model.embed_query("Rain").await.unwrap();
    assert!(max_diff(&padded.vectors[1], &alone) < 1e-4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similarities_rank_real_sentences_sensibly() {
    let Some(model) = model().await else { return };
    support::ranks_real_sentences_sensibly(model).await;
}

/// The int8 ONNX model gives nearly the vectors of the f32 model run by
/// candle: the same tokenizer, pooling and normalisation, weights quantised.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_agree_with_the_candle_backend() {
    let Some(model) = model().await else { return };
    let Some(f32_dir) = service_url("AGCORE_TEST_MINILM_DIR") else {
        return;
    };
    let candle = LocalEmbedder::load(&f32_dir).await.unwrap();
    let texts = strings(SENTENCES);
    let onnx = model.embed(&texts, InputKind::Document).await.unwrap();
    let reference = candle.embed(&texts, InputKind::Document).await.unwrap();
    let mut lowest = f32::MAX;
    for ((text, a), b) in SENTENCES.iter().zip(&onnx.vectors).zip(&reference.vectors) {
        let c = cosine(a, b);
        lowest = lowest.min(c);
        assert!(
            c >= 0.97,
            "{text:?}: cosine {c} between ONNX int8 and candle f32"
        );
    }
    eprintln!(
        "lowest ONNX/candle cosine over {} sentences: {lowest:.4}",
        texts.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_set_prefixes_length_threads_and_id() {
    let Some(dir) = dir() else { return };
    let Some(plain) = model().await else { return };
    let options = OnnxEmbedderOptions::new()
        .common(
            LocalEmbedderOptions::new()
                .query_prefix("query: ")
                .max_seq_len(16)
                .threads(1)
                .batch_size(3)
                .model_id("minilm-onnx-test"),
        )
        .model_file("model.onnx");
    let model = OnnxEmbedder::load_with(&dir, options).await.unwrap();
    assert_eq!(model.model_id(), "minilm-onnx-test");
    assert_eq!(model.max_seq_len(), 16);
    assert_eq!(model.threads(), 1);
    assert_eq!(model.max_batch(), 3);

    let text = "We drove to Brighton for the weekend";
    let doc = model
        .embed(&strings(&[text]), InputKind::Document)
        .await
        .unwrap();
    let reference = plain.embed_query(text).await.unwrap();
    assert!(max_diff(&doc.vectors[0], &reference) < 1e-4);
    let query = model.embed_query(text).await.unwrap();
    let prefixed = plain.embed_query(&format!("query: {text}")).await.unwrap();
    assert!(max_diff(&query, &prefixed) < 1e-4);
    assert!(max_diff(&query, &doc.vectors[0]) > 1e-3);
    // 16 tokens: words past the 14th are dropped.
    let words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    let cut = model
        .embed(
            &strings(&[words, &format!("{words} fifteen sixteen")]),
            InputKind::Document,
        )
        .await
        .unwrap();
    assert_eq!(cut.vectors[0], cut.vectors[1]);
}

#[tokio::test]
async fn bad_folders_and_options_are_reported() {
    let empty = tempfile::tempdir().unwrap();
    let err = OnnxEmbedder::load(empty.path()).await.unwrap_err();
    assert!(
        matches!(&err, LocalEmbedError::MissingFile { path } if path.ends_with("model.onnx")),
        "{err}"
    );
    assert!(!err.is_recoverable());

    let Some(dir) = dir() else { return };
    // A runtime library that is not there names where the path came from.
    let options = OnnxEmbedderOptions::new().runtime_library(empty.path().join("libnothing.so"));
    let err = OnnxEmbedder::load_with(&dir, options).await.unwrap_err();
    assert!(matches!(err, LocalEmbedError::Runtime(_)), "{err}");
    assert!(err.to_string().contains("runtime_library"), "{err}");

    // A folder with the model but no tokenizer names the missing file.
    let partial = tempfile::tempdir().unwrap();
    std::fs::write(partial.path().join("model.onnx"), b"not a model").unwrap();
    let err = OnnxEmbedder::load(partial.path()).await.unwrap_err();
    assert!(err.to_string().contains("tokenizer.json"), "{err}");
    // A file that is not an ONNX graph is refused by ONNX Runtime.
    std::fs::copy(
        dir.join("tokenizer.json"),
        partial.path().join("tokenizer.json"),
    )
    .unwrap();
    let err = OnnxEmbedder::load(partial.path()).await.unwrap_err();
    assert!(matches!(err, LocalEmbedError::Onnx { .. }), "{err}");
    assert!(err.to_string().contains("model.onnx"), "{err}");

    for common in [
        LocalEmbedderOptions::new().batch_size(0),
        LocalEmbedderOptions::new().threads(0),
        LocalEmbedderOptions::new().max_seq_len(513),
        LocalEmbedderOptions::new().max_seq_len(2),
    ] {
        let err = OnnxEmbedder::load_with(&dir, common.into())
            .await
            .unwrap_err();
        assert!(matches!(err, LocalEmbedError::InvalidOption(_)), "{err}");
    }
}
