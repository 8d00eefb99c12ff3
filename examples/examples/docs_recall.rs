//! Index agcore's own
//! documentation (every Markdown file of the repository, cut at its headings
//! by `agcore_memory::knowledge::chunk`)
//! into a SQLite memory store and a knowledge wiki, then answer recall
//! queries against it with BM25 and print the best sections with timings.
//!
//! `cargo run -p agcore-examples --example docs_recall [-- "your question"]`

#![allow(clippy::print_stdout)]

use agcore_memory_sqlite::SqliteStore;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use agcore_memory::knowledge::chunk::{sections, summary};
use agcore_memory::retriever::{MemoryRetriever, RetrieverConfig};
use agcore_memory::{
    KnowledgePage, KnowledgeStore, MemoryError, MemoryItem, MemoryStore, SearchOptions,
};

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if !name.starts_with('.') && name != "target" && name != "node_modules" {
                markdown_files(&path, out)?;
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), MemoryError> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    markdown_files(&root, &mut files).map_err(|e| MemoryError::Storage(e.to_string()))?;
    files.sort();

    let mut all = Vec::new();
    for file in &files {
        let text =
            std::fs::read_to_string(file).map_err(|e| MemoryError::Storage(e.to_string()))?;
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(file)
            .display()
            .to_string();
        all.extend(sections(&rel, &text));
    }
    println!(
        "read {} Markdown files of this repository: {} sections",
        files.len(),
        all.len()
    );

    let dir = tempfile::tempdir().map_err(|e| MemoryError::Storage(e.to_string()))?;
    let store = Arc::new(SqliteStore::open(dir.path().join("docs.db")).await?);
    let started = Instant::now();
    let items: Vec<MemoryItem> = all
        .iter()
        .map(|s| {
            MemoryItem::new(format!("docs:{}", s.id), format!("{}\n{}", s.title, s.text))
                .with_metadata(serde_json::json!({ "title": s.title }))
        })
        .collect();
    store.save_many(items).await?;
    println!(
        "indexed into SQLite (FTS5) in {:.1} ms",
        started.elapsed().as_secs_f64() * 1e3
    );

    let knowledge = Arc::new(KnowledgeStore::new(Arc::new(
        agcore_memory::InMemoryStore::new(),
    )));
    for s in &all {
        knowledge
            .add_page(KnowledgePage::new(
                s.id.clone(),
                s.title.clone(),
                summary(&s.text),
                s.text.clone(),
            ))
            .await?;
    }
    let retriever =
        MemoryRetriever::over_knowledge(knowledge, RetrieverConfig::default().with_max_results(3));

    let mut queries: Vec<String> = std::env::args().skip(1).collect();
    if queries.is_empty() {
        queries = [
            "how do tests find the real servers",
            "which feature enables the MCP client",
            "what happens to the history when a turn fails",
            "do committed writes survive the process being killed",
            "Chinese text bigrams",
        ]
        .map(String::from)
        .to_vec();
    }
    for query in &queries {
        let started = Instant::now();
        let hits = store.search(query, &SearchOptions::top_k(3)).await?;
        let micros = started.elapsed().as_micros();
        println!("\n? {query}   (SQLite BM25, {micros} µs)");
        for hit in &hits {
            let title = hit
                .item
                .metadata
                .get("title")
                .and_then(|t| t.as_str())
                .unwrap_or("");
            println!("  {:>6.2}  {title}", hit.score);
        }
        if hits.is_empty() {
            println!("  (nothing found)");
        }
        let wiki = retriever.retrieve(query).await?;
        if let Some(best) = wiki.items.first()
            && let agcore_memory::retriever::RetrievedSource::Page(page) = &best.source
        {
            println!("  wiki best match ({:.2}): {}", best.score, page.title);
        }
    }
    Ok(())
}
