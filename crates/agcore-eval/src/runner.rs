//! Ingestion into the stores under evaluation and the evaluation loop.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use agcore::memory::hybrid::{HybridStore, ProgressFn};
use agcore::memory::{MemoryFilter, MemoryItem};
use indicatif::{ProgressBar, ProgressStyle};

use super::ceiling::{CeilingAccumulator, TwoLists};
use super::dataset::Dataset;
use super::metrics::{Accumulator, Latency};
use super::report::RetrieverReport;
use super::retrievers::{ContextualOptions, Engine, K, RetrieverName};
use crate::EvalError;

/// Memories written per `save_many` call.
const BATCH: usize = 256;

/// A progress bar on stderr, hidden when stderr is not a terminal.
fn progress(len: usize, message: &'static str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(u64::try_from(len).unwrap_or(u64::MAX));
    if let Ok(style) = ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {elapsed}") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message(message);
    bar
}

/// Writes every namespace's documents into its store's lexical side (the
/// inner store; [`embed`] embeds them after); returns the time taken.
///
/// # Errors
/// Store errors.
pub async fn ingest(stores: &[HybridStore], dataset: &Dataset) -> Result<Duration, EvalError> {
    let bar = progress(dataset.documents(), "ingesting");
    let started = Instant::now();
    for (ns, store) in dataset.namespaces.iter().zip(stores) {
        let prefix = ns.prefix();
        let items: Vec<MemoryItem> = ns
            .docs
            .iter()
            .map(|d| {
                MemoryItem::new(format!("{prefix}{}", d.id), d.content.clone())
                    .with_metadata(d.metadata.clone())
                    .with_created_at(d.created_at)
            })
            .collect();
        for chunk in items.chunks(BATCH) {
            store.inner().save_many(chunk.to_vec()).await?;
            bar.inc(u64::try_from(chunk.len()).unwrap_or(0));
        }
    }
    bar.finish_and_clear();
    Ok(started.elapsed())
}

/// Embeds every document and every window of the sequences they are in,
/// of every store, in one bulk call on the index the stores share
/// ([`DenseIndex::embed_all`](agcore::memory::hybrid::DenseIndex::embed_all):
/// each distinct text once, length-sorted batches of the model's size),
/// reporting to `progress`; returns the time taken (zero without an embedder).
///
/// # Errors
/// Store errors; embedding errors (server down, model refusal).
pub async fn embed(
    stores: &[HybridStore],
    progress: Option<ProgressFn<'_>>,
) -> Result<Duration, EvalError> {
    // The stores share one index (see `EvalStore::open`).
    let Some(dense) = stores.iter().find_map(HybridStore::dense) else {
        return Ok(Duration::ZERO);
    };
    let started = Instant::now();
    let mut texts = Vec::new();
    for store in stores {
        texts.extend(store.texts_to_embed(&MemoryFilter::default()).await?);
    }
    let report = dense.embed_all(texts, progress).await?;
    let elapsed = started.elapsed();
    tracing::info!(
        texts = report.texts,
        model_texts = report.model_texts,
        up_to_date = report.up_to_date,
        seconds = elapsed.as_secs_f64(),
        texts_per_second = report.model_texts as f64 / elapsed.as_secs_f64().max(1e-9),
        "embedded documents and windows"
    );
    Ok(elapsed)
}

/// Runs every query of `dataset` through retriever `name`.
///
/// # Errors
/// Store and retriever errors.
pub async fn evaluate(
    name: RetrieverName,
    stores: &[HybridStore],
    dataset: &Dataset,
    ingest: Duration,
    options: ContextualOptions,
) -> Result<RetrieverReport, EvalError> {
    let (engine, build) = Engine::prepare(name, stores, dataset, options).await?;
    let bar = progress(dataset.queries(), name.label());
    let mut per_category: BTreeMap<String, Accumulator> = BTreeMap::new();
    let mut latencies = Vec::with_capacity(dataset.queries());
    let mut embed_latencies = Vec::with_capacity(dataset.queries());
    let mut search_latencies = Vec::with_capacity(dataset.queries());
    let mut ceiling = CeilingAccumulator::default();
    for (i, ns) in dataset.namespaces.iter().enumerate() {
        let prefix = ns.prefix();
        for query in &ns.queries {
            // The fusion ceiling is the product hybrid search's alone.
            let want_lists =
                name == RetrieverName::Hybrid && headline_category(dataset, &query.category);
            let searched = engine.search(i, &query.text, want_lists).await?;
            let timing = searched.timing;
            latencies.push(timing.total);
            embed_latencies.push(timing.embed);
            search_latencies.push(timing.search);
            let strip = |id: &String| id.strip_prefix(&prefix).map_or(id.clone(), str::to_owned);
            let ranked: Vec<String> = searched.ids.iter().take(K).map(strip).collect();
            per_category
                .entry(query.category.clone())
                .or_default()
                .add(&ranked, &query.relevant);
            if let Some(lists) = searched.lists {
                let strip_all = |list: Vec<(String, f64)>| {
                    list.into_iter().map(|(id, s)| (strip(&id), s)).collect()
                };
                let lists = TwoLists {
                    lexical: strip_all(lists.lexical),
                    dense: strip_all(lists.dense),
                };
                ceiling.add(&lists, &query.relevant);
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let (headline, label) = headline(dataset, &per_category);
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    // Lexical retrievers embed nothing: no embedding / search split.
    let split = !lexical_only(name);
    Ok(RetrieverReport {
        retriever: name.label(),
        build_ms: ms(build),
        index_ms: ms(ingest + build),
        overall: headline.scores(label),
        categories: per_category.iter().map(|(c, acc)| acc.scores(c)).collect(),
        latency: Latency::of(&mut latencies),
        embed_latency: split.then(|| Latency::of(&mut embed_latencies)),
        search_latency: split.then(|| Latency::of(&mut search_latencies)),
        fusion_ceiling: ceiling.ceiling(label),
    })
}

/// Whether `category` counts in the headline group: LoCoMo categories 1–4
/// (5, adversarial, is reported apart), every BEIR group.
fn headline_category(dataset: &Dataset, category: &str) -> bool {
    dataset.kind != "locomo" || matches!(category, "1" | "2" | "3" | "4")
}

/// The headline group's scores (see [`headline_category`]) and its label.
fn headline(
    dataset: &Dataset,
    per_category: &BTreeMap<String, Accumulator>,
) -> (Accumulator, &'static str) {
    let mut headline = Accumulator::default();
    for (category, acc) in per_category {
        if headline_category(dataset, category) {
            headline.merge(acc);
        }
    }
    let label = if dataset.kind == "locomo" {
        "1-4"
    } else {
        "all"
    };
    (headline, label)
}

/// Whether `name` ranks by words alone (no query embedding).
fn lexical_only(name: RetrieverName) -> bool {
    matches!(
        name,
        RetrieverName::Lexical
            | RetrieverName::TextOverlap
            | RetrieverName::Bm25
            | RetrieverName::ContextualBm25
            | RetrieverName::ContextualBm25Rm3
            | RetrieverName::LexicalContext
            | RetrieverName::LexicalNoContextField
            | RetrieverName::LexicalOneStore
            | RetrieverName::All
    )
}
