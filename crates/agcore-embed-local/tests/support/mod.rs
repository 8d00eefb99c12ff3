//! Helpers and checks shared by the embedder tests (candle and ONNX Runtime).
#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing)]

use agcore_llm::embedding::{EmbeddingModel, InputKind};

pub fn strings(texts: &[&str]) -> Vec<String> {
    texts.iter().map(|t| (*t).to_owned()).collect()
}

pub fn norm(v: &[f32]) -> f32 {
    v.iter().map(|x| x * x).sum::<f32>().sqrt()
}

pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    dot / (norm(a) * norm(b))
}

pub fn max_diff(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f32::max)
}

/// A paraphrase query finds its sentence first among unrelated ones, and a
/// paraphrase pair is far closer than an unrelated pair.
pub async fn ranks_real_sentences_sensibly(model: &dyn EmbeddingModel) {
    let docs = strings(&[
        "The quarterly report is due on Friday",
        "We drove to Brighton for the weekend",
        "My sister adopted a grey cat from the shelter",
        "Rust's borrow checker rejects two mutable references",
    ]);
    let vectors = model
        .embed(&docs, InputKind::Document)
        .await
        .unwrap()
        .vectors;
    let query = model.embed_query("the trip to the coast").await.unwrap();
    let scores: Vec<f32> = vectors.iter().map(|v| cosine(&query, v)).collect();
    let best = scores
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .unwrap()
        .0;
    assert_eq!(best, 1, "Brighton should rank first: {scores:?}");

    let pair = model
        .embed(
            &strings(&[
                "A man is playing a guitar on stage",
                "Someone performs music with a guitar in front of an audience",
                "The stock market fell sharply on Monday",
            ]),
            InputKind::Document,
        )
        .await
        .unwrap()
        .vectors;
    let paraphrase = cosine(&pair[0], &pair[1]);
    let unrelated = cosine(&pair[0], &pair[2]);
    assert!(paraphrase > 0.5, "paraphrase cosine {paraphrase}");
    assert!(unrelated < 0.2, "unrelated cosine {unrelated}");
    assert!(paraphrase > unrelated + 0.3, "{paraphrase} vs {unrelated}");
}
