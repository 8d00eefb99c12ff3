//! `agcore memory search --explain`: the score breakdown of every candidate.

use agcore::memory::hybrid::CutRule;
use agcore::memory::long_term::SearchRequest;
use agcore::memory::retriever::ListScore;

use crate::error::CliError;
use crate::output::{self, Table, cell};
use crate::scope::OpenedMemory;

fn list_cell(score: Option<ListScore>, digits: usize) -> String {
    score.map_or_else(
        || "-".to_owned(),
        |s| format!("{:.digits$} #{}", s.score, s.rank),
    )
}

fn cut_cell(cut: Option<CutRule>) -> String {
    match cut {
        None => "result".to_owned(),
        Some(CutRule::BelowSimilarity { min }) => format!("cut: similarity < {min}"),
        Some(CutRule::BelowMinScore { min }) => format!("cut: score < {min}"),
        Some(CutRule::BeyondLimit { limit }) => format!("cut: beyond top {limit}"),
    }
}

/// Prints every candidate of the search with its lexical and dense scores
/// and ranks, fused score, time decay, and the rule that cut it.
///
/// # Errors
/// Storage and vector store errors.
pub async fn explain(
    opened: &OpenedMemory,
    query: &str,
    request: &SearchRequest,
    json: bool,
) -> Result<(), CliError> {
    let report = opened.scoped.search_explained(query, request).await?;
    if json {
        return output::json(&report);
    }
    let mut table = Table::new([
        "ID", "BM25 #", "COSINE #", "FUSED", "SCORE", "OUTCOME", "CONTENT",
    ]);
    for hit in &report.hits {
        let b = &hit.breakdown;
        table.row([
            hit.item.id.to_string(),
            list_cell(b.lexical, 3),
            list_cell(b.dense, 3),
            format!("{:.4}", b.fused),
            format!("{:.4}", b.score),
            cut_cell(b.cut),
            cell(&hit.item.content, 48),
        ]);
    }
    let mode = match &opened.dense {
        Some(d) => format!("hybrid ({})", d.embedder().space()),
        None => "lexical (no [embedding] configured)".to_owned(),
    };
    let mut text = format!(
        "{mode} · query embedding {:.1} ms · search {:.1} ms\n",
        report.embed_micros as f64 / 1e3,
        report.search_micros as f64 / 1e3
    );
    if let Some(reason) = &report.dense_unavailable {
        text.push_str(&format!("dense search unavailable: {reason}\n"));
    }
    if report.hits.is_empty() {
        text.push_str("no candidates\n");
        return output::emit(&text);
    }
    text.push_str(&table.render());
    output::emit(&text)
}
