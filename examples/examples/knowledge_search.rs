//! Knowledge search: wiki pages in a `KnowledgeStore`, keyword retrieval with
//! the Dice-coefficient `TextOverlap` score, threshold filtering, backlinks,
//! and the wiki exported as Markdown.
//!
//! Offline and deterministic: `cargo run -p agcore-examples --example knowledge_search`
#![allow(clippy::print_stdout)]

use std::error::Error;
use std::sync::Arc;

use agcore_memory::retriever::{
    MemoryRetriever, RetrievedSource, RetrieverConfig, extract_keywords,
};
use agcore_memory::{InMemoryStore, KnowledgePage, KnowledgeStore, RetrievalResult};

fn show(result: &RetrievalResult) {
    println!("query {:?} → keywords {:?}", result.query, result.keywords);
    if result.items.is_empty() {
        println!("  (no page above the threshold)");
    }
    for item in &result.items {
        if let RetrievedSource::Page(page) = &item.source {
            println!("  page: {:<14} score {:.2}", page.title, item.score);
        }
        assert!((0.0..=1.0).contains(&item.score));
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let wiki = Arc::new(KnowledgeStore::open(Arc::new(InMemoryStore::new())).await?);
    let pages = [
        KnowledgePage::new(
            "rust-intro",
            "Rust 入门",
            "Rust 语言简介",
            "Rust 是一门系统编程语言,注重内存安全。",
        )
        .with_tags(["rust", "编程"]),
        KnowledgePage::new(
            "python-intro",
            "Python 简介",
            "Python 语言简介",
            "Python 是动态类型语言,适合脚本。",
        )
        .with_tags(["python", "动态"]),
        KnowledgePage::new(
            "bm25",
            "BM25",
            "A ranking function",
            "Okapi BM25 ranks documents by term frequency and rarity.",
        )
        .with_tags(["search", "ranking"]),
        KnowledgePage::new(
            "keyword-search",
            "Keyword search",
            "How memories are found",
            "Keywords, then BM25, then a Dice score.",
        )
        .with_tags(["search"])
        .with_references(["bm25", "rust-intro"]),
    ];
    for page in pages {
        wiki.add_page(page).await?;
    }

    println!(
        "stop words and CJK bigrams: {:?}",
        extract_keywords("What is the Rust 语言 of the 系统?")
    );

    let retriever = MemoryRetriever::over_knowledge(Arc::clone(&wiki), RetrieverConfig::default());
    show(&retriever.retrieve("Rust 语言").await?);
    show(&retriever.retrieve("ranking search").await?);

    // A stricter threshold drops the weaker matches.
    let strict = MemoryRetriever::over_knowledge(
        Arc::clone(&wiki),
        RetrieverConfig::default().with_min_score(0.6),
    );
    println!("with min_score = 0.6:");
    show(&strict.retrieve("Rust 语言").await?);

    println!("pages linking to bm25: {:?}", wiki.backlinks("bm25")?);
    println!("\n{}", wiki.index_markdown().await?);

    let dir = tempfile::tempdir()?;
    let written = wiki.export_dir(dir.path()).await?;
    let mut files: Vec<String> = std::fs::read_dir(dir.path().join("pages"))?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    files.sort();
    println!("exported {written} pages + index.md + log.md: {files:?}");
    let copy = KnowledgeStore::new(Arc::new(InMemoryStore::new()));
    println!(
        "re-imported {} pages into a fresh store",
        copy.import_dir(dir.path()).await?
    );
    Ok(())
}
