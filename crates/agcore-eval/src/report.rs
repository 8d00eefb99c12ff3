//! The evaluation report: a table for people, JSON for scripts.

use std::fmt::Write as _;

use serde::Serialize;

use super::ceiling::Ceiling;
use super::locomo::TurnFormat;
use super::metrics::{Latency, Scores};

/// Everything `agcore eval` measured.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// `"locomo"` or `"beir"`.
    pub dataset: &'static str,
    /// The input file or folder.
    pub input: String,
    /// `"memory"` or `"sqlite"`.
    pub store: &'static str,
    /// The embedding model of the dense and hybrid retrievers, if any.
    pub embedder: Option<String>,
    /// Time the background queue took to embed every document after
    /// ingestion, in milliseconds (0 without an embedder).
    pub embed_ms: f64,
    /// How LoCoMo turns were rendered (`None` for BEIR).
    pub format: Option<TurnFormat>,
    /// Neighbouring turns indexed as context by the contextual retrievers.
    pub context_window: usize,
    /// Whether the contextual retrievers stem terms.
    pub stemming: bool,
    /// Conversations (LoCoMo) or 1 (BEIR).
    pub namespaces: usize,
    /// Documents ingested.
    pub documents: usize,
    /// Queries scored (all categories).
    pub questions_scored: usize,
    /// Queries skipped for lack of relevant documents.
    pub questions_skipped: usize,
    /// Relevance labels dropped because they named no document or query.
    pub ids_dropped: usize,
    /// Time to write every document into the store, in milliseconds.
    pub ingest_ms: f64,
    /// One entry per retriever.
    pub results: Vec<RetrieverReport>,
}

/// The figures of one retriever.
#[derive(Debug, Clone, Serialize)]
pub struct RetrieverReport {
    /// The retriever's command-line name.
    pub retriever: &'static str,
    /// Time to build the retriever's own index after ingestion, in
    /// milliseconds (0 for retrievers searching the store directly).
    pub build_ms: f64,
    /// Index time: ingestion plus build, in milliseconds.
    pub index_ms: f64,
    /// The headline group (LoCoMo categories 1–4; BEIR all queries).
    pub overall: Scores,
    /// Per category (LoCoMo `1`–`5`; category 5 is outside the headline).
    pub categories: Vec<Scores>,
    /// Latency of the retrieval call alone.
    pub latency: Latency,
    /// Of that, embedding the query (dense and hybrid retrievers only).
    pub embed_latency: Option<Latency>,
    /// Of that, everything but the query embedding: searching and fusing
    /// (dense and hybrid retrievers only).
    pub search_latency: Option<Latency>,
    /// For `hybrid`: what its two candidate lists hold and the most
    /// weighted fusion of them could recall with the weight chosen per
    /// question (headline group only; a diagnostic that uses the answers).
    pub fusion_ceiling: Option<Ceiling>,
}

impl Report {
    /// The human-readable table.
    pub fn to_table(&self) -> String {
        let mut out = String::new();
        self.header(&mut out);
        let _ = writeln!(
            out,
            "\n{:<20} {:>5} {:>5} {:>6} {:>6} {:>8} {:>9} {:>8} {:>8}",
            "retriever", "group", "n", "R@5", "R@10", "nDCG@10", "index ms", "p50 ms", "p99 ms"
        );
        let mut split = String::new();
        let mut ceilings = String::new();
        for r in &self.results {
            r.notes(&mut split, &mut ceilings);
            let _ = writeln!(
                out,
                "{:<20} {:>5} {:>5} {:>6.3} {:>6.3} {:>8.3} {:>9.1} {:>8.4} {:>8.4}",
                r.retriever,
                r.overall.label,
                r.overall.questions,
                r.overall.recall_at_5,
                r.overall.recall_at_10,
                r.overall.ndcg_at_10,
                r.index_ms,
                r.latency.p50_ms,
                r.latency.p99_ms
            );
            if r.categories.len() > 1
                || r.categories
                    .first()
                    .is_some_and(|c| c.label != r.overall.label)
            {
                for c in &r.categories {
                    let _ = writeln!(
                        out,
                        "{:<20} {:>5} {:>5} {:>6.3} {:>6.3} {:>8.3}",
                        "", c.label, c.questions, c.recall_at_5, c.recall_at_10, c.ndcg_at_10
                    );
                }
            }
        }
        for extra in [split, ceilings] {
            if !extra.is_empty() {
                out.push('\n');
                out.push_str(&extra);
            }
        }
        out
    }

    /// The lines above the table: data set, store, embedder, counts.
    fn header(&self, out: &mut String) {
        let format = self.format.map_or(String::new(), |f| {
            format!(
                " · format {}",
                serde_json::to_value(f)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default()
            )
        });
        let _ = writeln!(
            out,
            "{} {} · store {}{format} · {} namespaces, {} documents",
            self.dataset, self.input, self.store, self.namespaces, self.documents
        );
        if let Some(embedder) = &self.embedder {
            let _ = writeln!(
                out,
                "embedder {embedder} · documents embedded in the background in {:.1} s",
                self.embed_ms / 1e3
            );
        }
        let _ = writeln!(
            out,
            "questions scored {} · skipped (no relevant id left) {} · ids dropped {} · ingest {:.1} ms",
            self.questions_scored, self.questions_skipped, self.ids_dropped, self.ingest_ms
        );
    }
}

impl RetrieverReport {
    /// Appends this retriever's latency split and fusion ceiling lines.
    fn notes(&self, split: &mut String, ceilings: &mut String) {
        let r = self;
        if let Some(c) = &r.fusion_ceiling {
            let _ = writeln!(
                ceilings,
                "{:<20} fusion ceiling ({}, {} questions, uses the answers): R@10 of the lexical list {:.3} · dense list {:.3} · both lists' first 10 {:.3} · best lexical weight per question R@10 {:.3}, nDCG@10 {:.3}",
                r.retriever,
                c.label,
                c.questions,
                c.lexical_recall_at_10,
                c.dense_recall_at_10,
                c.union_recall_at_10,
                c.best_weight_recall_at_10,
                c.best_weight_ndcg_at_10
            );
        }
        if let (Some(e), Some(s)) = (&r.embed_latency, &r.search_latency) {
            let _ = writeln!(
                split,
                "{:<20} query embedding p50 {:.3} ms, p99 {:.3} ms · search p50 {:.3} ms, p99 {:.3} ms",
                r.retriever, e.p50_ms, e.p99_ms, s.p50_ms, s.p99_ms
            );
        }
    }
}
