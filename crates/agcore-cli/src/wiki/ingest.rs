//! `wiki ingest`: a folder of notes into the knowledge store, one page per
//! section, idempotently.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use agcore::memory::{KnowledgePage, KnowledgeStore};
use serde::Serialize;

use super::chunk::{self, Section};
use crate::error::CliError;
use crate::progress;

/// What an ingest did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct IngestReport {
    /// Files read.
    pub files: usize,
    /// Sections found (pages wanted).
    pub sections: usize,
    /// Pages added.
    pub created: usize,
    /// Pages whose text changed.
    pub updated: usize,
    /// Pages already up to date.
    pub unchanged: usize,
    /// Pages of ingested files whose section no longer exists, deleted.
    pub removed: usize,
}

/// One file's sections with the page ids they link to.
struct FilePages {
    rel: String,
    sections: Vec<Section>,
}

/// Reads every note under `dir`, cuts Markdown at its headings and upserts one
/// page per section: new ids are added, changed ones updated, identical ones
/// left alone, and pages of these files whose section disappeared deleted.
/// Relative links between ingested files become page references. Shows a
/// progress bar on a terminal.
///
/// # Errors
/// [`CliError::Input`] (exit 3) when `dir` is not a readable folder or a file
/// is not UTF-8 text; the store's errors.
pub(crate) async fn ingest_dir(
    wiki: &KnowledgeStore,
    dir: &Path,
) -> Result<IngestReport, CliError> {
    if !dir.is_dir() {
        return Err(CliError::input(dir, "not a folder"));
    }
    let files = chunk::note_files(dir)
        .map_err(|e| CliError::input(dir, format!("cannot read the folder: {e}")))?;
    let mut read = Vec::with_capacity(files.len());
    for file in &files {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::input(file, format!("cannot read it as UTF-8 text: {e}")))?;
        let rel = file
            .strip_prefix(dir)
            .unwrap_or(file)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let sections = chunk::sections(&rel, &text);
        read.push(FilePages { rel, sections });
    }
    let anchors = anchor_map(&read);
    let existing: BTreeSet<String> = wiki.get_index().await?.into_iter().map(|e| e.id).collect();
    let mut report = IngestReport {
        files: read.len(),
        sections: read.iter().map(|f| f.sections.len()).sum(),
        ..IngestReport::default()
    };
    let bar = progress::bar(report.sections as u64, "ingest");
    for file in &read {
        let mut wanted = BTreeSet::new();
        for section in &file.sections {
            wanted.insert(section.id.clone());
            let references = references(&file.rel, section, &anchors);
            upsert(wiki, section, references, &mut report).await?;
            bar.inc(1);
        }
        let prefix = chunk::file_prefix(&file.rel);
        for stale in existing
            .iter()
            .filter(|id| id.starts_with(&prefix) && !wanted.contains(*id))
        {
            wiki.delete_page(stale).await?;
            report.removed += 1;
        }
    }
    bar.finish_and_clear();
    Ok(report)
}

/// file → (anchor → page id), the first section under `""`.
fn anchor_map(files: &[FilePages]) -> HashMap<&str, HashMap<String, String>> {
    let mut map = HashMap::new();
    for file in files {
        let mut anchors = HashMap::new();
        if let Some(first) = file.sections.first() {
            anchors.insert(String::new(), first.id.clone());
        }
        for s in &file.sections {
            anchors
                .entry(s.anchor.clone())
                .or_insert_with(|| s.id.clone());
        }
        map.insert(file.rel.as_str(), anchors);
    }
    map
}

fn references(
    rel: &str,
    section: &Section,
    anchors: &HashMap<&str, HashMap<String, String>>,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for link in &section.links {
        let Some((file, anchor)) = chunk::resolve_link(rel, link) else {
            continue;
        };
        let Some(pages) = anchors.get(file.as_str()) else {
            continue;
        };
        let id = anchor
            .and_then(|a| pages.get(&chunk::slug(&a)))
            .or_else(|| pages.get(""));
        if let Some(id) = id.filter(|id| **id != section.id && !out.contains(id)) {
            out.push(id.clone());
        }
    }
    out
}

async fn upsert(
    wiki: &KnowledgeStore,
    section: &Section,
    references: Vec<String>,
    report: &mut IngestReport,
) -> Result<(), CliError> {
    let page = KnowledgePage::new(
        section.id.clone(),
        section.title.clone(),
        chunk::summary(&section.text),
        section.text.clone(),
    )
    .with_references(references);
    match wiki.get_page(&page.id).await? {
        None => {
            wiki.add_page(page).await?;
            report.created += 1;
        }
        Some(old)
            if old.title == page.title
                && old.summary == page.summary
                && old.content == page.content
                && old.references == page.references =>
        {
            report.unchanged += 1;
        }
        Some(_) => {
            wiki.update_page(page).await?;
            report.updated += 1;
        }
    }
    Ok(())
}
