//! `memory list` and `memory search`.

use agcore::memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, MemoryEntry, ScoredEntry, SearchRequest,
};
use clap::{Args, ValueEnum};

use super::parse_type;
use crate::error::CliError;
use crate::output::{self, Table, cell};
use crate::scope::OpenedMemory;

/// Widest content cell of a table, in columns.
const CONTENT_WIDTH: usize = 60;

/// Order of `memory list`.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SortBy {
    /// Most recently updated first.
    Updated,
    /// Heaviest first.
    Weight,
    /// Oldest first.
    Created,
}

/// Arguments of `memory list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// Only memories of this type: user, project, feedback or reference.
    #[arg(long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// Show archived memories too.
    #[arg(long)]
    archived: bool,
    /// At most this many memories.
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Order of the listing.
    #[arg(long, value_enum, default_value = "updated")]
    sort: SortBy,
}

/// Arguments of `memory search`.
#[derive(Debug, Args)]
pub struct SearchArgs {
    /// The search text (any language; Chinese works).
    query: String,
    /// Only memories of this type: user, project, feedback or reference.
    #[arg(long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// Search archived memories too.
    #[arg(long)]
    archived: bool,
    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 10)]
    limit: usize,
    /// Show why each memory was found: its BM25 and dense scores and ranks,
    /// the fused score, and the candidates a rule cut (threshold, limit).
    #[arg(long)]
    explain: bool,
}

fn archived_filter(include: bool) -> ArchivedFilter {
    if include {
        ArchivedFilter::Include
    } else {
        ArchivedFilter::Exclude
    }
}

/// Runs `memory list`.
///
/// # Errors
/// [`CliError::Invalid`] for an unknown type; storage errors.
pub async fn list(opened: &OpenedMemory, args: &ListArgs, json: bool) -> Result<(), CliError> {
    let order = match args.sort {
        SortBy::Updated => ListOrder::RecentlyUpdated,
        SortBy::Weight => ListOrder::Weight,
        SortBy::Created => ListOrder::Created,
    };
    let mut request = ListRequest::all().order(order);
    request.archived = archived_filter(args.archived);
    if let Some(t) = &args.memory_type {
        request = request.of_type(parse_type(t)?);
    }
    if let Some(limit) = args.limit {
        request = request.limit(limit);
    }
    let entries = opened.scoped.list(&request).await?;
    if json {
        return output::json(&entries);
    }
    if entries.is_empty() {
        return output::line(&format!("no memories in {}", super::scope_label(opened)));
    }
    output::emit(&entries_table(&entries).render())
}

/// The human table of `entries`.
pub(crate) fn entries_table(entries: &[MemoryEntry]) -> Table {
    let mut table = Table::new([
        "ID", "TYPE", "WEIGHT", "USES", "STATE", "UPDATED", "NAME", "CONTENT",
    ]);
    for e in entries {
        table.row([
            e.id.to_string(),
            e.memory_type.to_string(),
            format!("{:.2}", e.weight),
            e.use_count.to_string(),
            if e.archived { "archived" } else { "active" }.to_owned(),
            e.updated_at.format("%Y-%m-%d %H:%M").to_string(),
            cell(&e.name, 24),
            cell(&e.content, CONTENT_WIDTH),
        ]);
    }
    table
}

/// Runs `memory search`.
///
/// # Errors
/// [`CliError::Invalid`] for an unknown type or a zero limit; storage errors.
pub async fn search(opened: &OpenedMemory, args: &SearchArgs, json: bool) -> Result<(), CliError> {
    if args.limit == 0 {
        return Err(CliError::Invalid("--limit must be at least 1".to_owned()));
    }
    let mut request = SearchRequest::top_k(args.limit).archived(archived_filter(args.archived));
    if let Some(t) = &args.memory_type {
        request = request.of_type(parse_type(t)?);
    }
    if args.explain {
        return super::explain::explain(opened, &args.query, &request, json).await;
    }
    let hits: Vec<ScoredEntry> = opened.scoped.search_with(&args.query, &request).await?;
    if json {
        return output::json(&hits);
    }
    if hits.is_empty() {
        return output::line(&format!(
            "no memories of {} match {:?}",
            super::scope_label(opened),
            args.query
        ));
    }
    let mut table = Table::new(["SCORE", "ID", "TYPE", "WEIGHT", "NAME", "CONTENT"]);
    for hit in &hits {
        let e = &hit.entry;
        table.row([
            format!("{:.3}", hit.score),
            e.id.to_string(),
            e.memory_type.to_string(),
            format!("{:.2}", e.weight),
            cell(&e.name, 24),
            cell(&e.content, CONTENT_WIDTH),
        ]);
    }
    output::emit(&table.render())
}
