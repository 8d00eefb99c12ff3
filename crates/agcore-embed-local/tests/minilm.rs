//! all-MiniLM-L6-v2 through the public API: shapes, norms, determinism,
//! batching and padding invariance, real-sentence similarities, awkward
//! inputs and options.
//!
//! Needs `AGCORE_TEST_MINILM_DIR` (`scripts/models.sh install`, then
//! `scripts/models.sh env`); without it each test prints why and returns,
//! except under `CI=true` or `AGCORE_REQUIRE_SERVICES=1`, where it fails.
#![cfg(test)]

use std::path::PathBuf;

use agcore_embed_local::{LocalEmbedError, LocalEmbedder, LocalEmbedderOptions, Pooling};
use agcore_llm::embedding::{EmbeddingModel, InputKind};
use agcore_memory_testkit::service_url;
use tokio::sync::OnceCell;

use crate::support;

use support::{max_diff, norm, strings};

static MODEL: OnceCell<Option<LocalEmbedder>> = OnceCell::const_new();

fn dir() -> Option<PathBuf> {
    service_url("AGCORE_TEST_MINILM_DIR").map(PathBuf::from)
}

/// The default-options model, loaded once per test binary.
async fn model() -> Option<&'static LocalEmbedder> {
    MODEL
        .get_or_init(|| async {
            let dir = dir()?;
            Some(LocalEmbedder::load(&dir).await.unwrap())
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
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn vectors_have_384_unit_norm_components() {
    let Some(model) = model().await else { return };
    assert_eq!(model.model_id(), "local:all-MiniLM-L6-v2");
    assert_eq!(model.dimensions(), 384);
    assert!(model.normalized());
    assert_eq!(model.pooling(), Pooling::Mean, "from 1_Pooling/config.json");
    assert_eq!(model.max_seq_len(), 256, "from sentence_bert_config.json");
    let batch = model
        .embed(&strings(SENTENCES), InputKind::Document)
        .await
        .unwrap();
    assert_eq!(batch.vectors.len(), SENTENCES.len());
    for v in &batch.vectors {
        assert_eq!(v.len(), 384);
        assert!((norm(v) - 1.0).abs() < 1e-5, "norm {}", norm(v));
    }
    let empty = model.embed(&[], InputKind::Document).await.unwrap();
    assert!(empty.vectors.is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn embedding_is_deterministic() {
    let Some(model) = model().await else { return };
    let texts = strings(SENTENCES);
    let a = model.embed(&texts, InputKind::Document).await.unwrap();
    let b = model.embed(&texts, InputKind::Document).await.unwrap();
    assert_eq!(a.vectors, b.vectors);
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
        assert!(diff < 1e-5, "{text:?} differs by {diff} in a batch");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn padding_does_not_change_a_vector() {
    let Some(dir) = dir() else { return };
    // One batch holding a 2-token text beside a ~200-token one: the short
    // text is padded with ~200 positions.
    let long = "The committee reviewed every proposal in detail before the vote. ".repeat(16);
    let short = "Rain".to_owned();
    let model = LocalEmbedder::load(&dir).await.unwrap();
    let padded = model
        .embed(&[long.clone(), short.clone()], InputKind::Document)
        .await
        .unwrap();
    let alone = model.embed(&[short], InputKind::Document).await.unwrap();
    let diff = max_diff(&padded.vectors[1], &alone.vectors[0]);
    assert!(diff < 1e-5, "padding moved the vector by {diff}");
    // Batches of one text (no padding at all) give the same vectors too.
    let single = LocalEmbedder::load_with(&dir, LocalEmbedderOptions::new().batch_size(1))
        .await
        .unwrap();
    let unpadded = single.embed(&[long], InputKind::Document).await.unwrap();
    assert!(max_diff(&padded.vectors[0], &unpadded.vectors[0]) < 1e-5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn similarities_rank_real_sentences_sensibly() {
    let Some(model) = model().await else { return };
    support::ranks_real_sentences_sensibly(model).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn awkward_inputs_give_finite_unit_vectors() {
    let Some(model) = model().await else { return };
    let long = "lorem ipsum dolor sit amet ".repeat(400); // 10,800 characters
    assert!(long.len() >= 10_000);
    let texts = vec![
        String::new(),
        "   ".to_owned(),
        long.clone(),
        "我们周末开车去了海边，天气很好。".to_owned(),
        "记忆系统需要支持中文检索".to_owned(),
        "emoji 🚗🌊 and\u{200b}zero-width\u{0}nul".to_owned(),
    ];
    let batch = model.embed(&texts, InputKind::Document).await.unwrap();
    assert_eq!(batch.vectors.len(), texts.len());
    for (text, v) in texts.iter().zip(&batch.vectors) {
        assert_eq!(v.len(), 384);
        assert!(v.iter().all(|x| x.is_finite()), "{text:?}");
        assert!((norm(v) - 1.0).abs() < 1e-5, "{text:?}: norm {}", norm(v));
    }
    // The long text was cut at 256 tokens: a different tail changes nothing.
    let tail = format!("{long} but the ending is about something else entirely");
    let cut = model
        .embed(&[long, tail], InputKind::Document)
        .await
        .unwrap();
    assert_eq!(cut.vectors[0], cut.vectors[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn options_set_prefixes_length_threads_and_id() {
    let Some(dir) = dir() else { return };
    let Some(plain) = model().await else { return };
    let options = LocalEmbedderOptions::new()
        .query_prefix("query: ")
        .max_seq_len(16)
        .threads(1)
        .model_id("minilm-test");
    let model = LocalEmbedder::load_with(&dir, options).await.unwrap();
    assert_eq!(model.model_id(), "minilm-test");
    assert_eq!(model.max_seq_len(), 16);

    let text = "We drove to Brighton for the weekend";
    // Documents get no prefix and fit in 16 tokens: the same vector as the
    // default model's, from a one-thread pool.
    let doc = model
        .embed(&strings(&[text]), InputKind::Document)
        .await
        .unwrap();
    let reference = plain
        .embed(&strings(&[text]), InputKind::Document)
        .await
        .unwrap();
    assert!(max_diff(&doc.vectors[0], &reference.vectors[0]) < 1e-5);
    // Queries get the prefix: the vector is that of the prefixed text.
    let query = model.embed_query(text).await.unwrap();
    let prefixed = plain.embed_query(&format!("query: {text}")).await.unwrap();
    assert!(max_diff(&query, &prefixed) < 1e-5);
    assert!(max_diff(&query, &doc.vectors[0]) > 1e-3);
    // 16 tokens: words past the 14th are dropped.
    let words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    let a = model
        .embed(
            &strings(&[words, &format!("{words} fifteen sixteen")]),
            InputKind::Document,
        )
        .await
        .unwrap();
    assert_eq!(a.vectors[0], a.vectors[1]);
}

#[tokio::test]
async fn bad_folders_and_options_are_reported() {
    let empty = tempfile::tempdir().unwrap();
    let err = LocalEmbedder::load(empty.path()).await.unwrap_err();
    assert!(
        matches!(&err, LocalEmbedError::MissingFile { path } if path.ends_with("config.json")),
        "{err}"
    );
    assert!(!err.is_recoverable());
    let llm: agcore_llm::LlmError = err.into();
    assert!(llm.to_string().contains("config.json"), "{llm}");

    let Some(dir) = dir() else { return };
    // A folder without weights names the missing file.
    let partial = tempfile::tempdir().unwrap();
    for name in ["config.json", "tokenizer.json"] {
        std::fs::copy(dir.join(name), partial.path().join(name)).unwrap();
    }
    let err = LocalEmbedder::load(partial.path()).await.unwrap_err();
    assert!(err.to_string().contains("model.safetensors"), "{err}");
    // Weights that do not match the configuration are a model error.
    std::fs::write(partial.path().join("model.safetensors"), b"not safetensors").unwrap();
    let err = LocalEmbedder::load(partial.path()).await.unwrap_err();
    assert!(matches!(err, LocalEmbedError::Candle(_)), "{err}");

    for options in [
        LocalEmbedderOptions::new().batch_size(0),
        LocalEmbedderOptions::new().threads(0),
        LocalEmbedderOptions::new().max_seq_len(513),
        LocalEmbedderOptions::new().max_seq_len(2),
    ] {
        let err = LocalEmbedder::load_with(&dir, options).await.unwrap_err();
        assert!(matches!(err, LocalEmbedError::InvalidOption(_)), "{err}");
    }
}
