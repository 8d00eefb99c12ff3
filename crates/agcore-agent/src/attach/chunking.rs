//! Cutting files into chunks for the `file` store: Markdown at its headings
//! (agcore's knowledge chunker), then every section into windows of
//! `size` characters overlapping by `overlap` (seed 003: 500 and 50).

use std::path::Path;

use agcore_memory::knowledge::chunk::sections;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How files are cut.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChunkStrategy {
    /// Markdown files (`.md`, `.mdx`, `.markdown`) at their headings first,
    /// each chunk titled with its heading path; other files as `chars`.
    #[default]
    Markdown,
    /// Fixed windows of characters only.
    Chars,
}

/// `chunking` of a `file` store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ChunkingConfig {
    /// Characters per chunk (Unicode scalar values), ≥ 1. Default 500.
    #[serde(default = "default_size")]
    pub size: usize,
    /// Characters shared by consecutive chunks, `< size`. Default 50.
    #[serde(default = "default_overlap")]
    pub overlap: usize,
    /// Default `markdown`.
    #[serde(default)]
    pub strategy: ChunkStrategy,
}

fn default_size() -> usize {
    500
}

fn default_overlap() -> usize {
    50
}

impl Default for ChunkingConfig {
    fn default() -> Self {
        Self {
            size: default_size(),
            overlap: default_overlap(),
            strategy: ChunkStrategy::default(),
        }
    }
}

/// One piece of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextChunk {
    /// `file › Heading › Subheading` (Markdown) or the file's path.
    pub title: String,
    /// The text.
    pub text: String,
}

/// Cuts `text` of the file `rel` (a path relative to its source, `/`-separated).
pub fn chunk_file(rel: &str, text: &str, config: &ChunkingConfig) -> Vec<TextChunk> {
    let markdown = config.strategy == ChunkStrategy::Markdown
        && Path::new(rel)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| {
                ["md", "mdx", "markdown"]
                    .iter()
                    .any(|m| e.eq_ignore_ascii_case(m))
            });
    let parts: Vec<(String, String)> = if markdown {
        sections(rel, text)
            .into_iter()
            .map(|s| (s.title, s.text))
            .collect()
    } else {
        vec![(rel.to_owned(), text.to_owned())]
    };
    let mut out = Vec::new();
    for (title, body) in parts {
        for window in windows(&body, config.size, config.overlap) {
            if !window.trim().is_empty() {
                out.push(TextChunk {
                    title: title.clone(),
                    text: window.to_owned(),
                });
            }
        }
    }
    out
}

/// Windows of at most `size` characters, each starting `overlap`
/// characters before the previous one ended; a window ends at the last line break
/// or space in its final fifth when there is one, so words stay whole.
pub fn windows(text: &str, size: usize, overlap: usize) -> Vec<&str> {
    let size = size.max(1);
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len().saturating_sub(1);
    let mut out = Vec::new();
    let mut start = 0usize;
    while start < chars {
        let mut end = (start + size).min(chars);
        if end < chars {
            let floor = end - size / 5;
            if let Some(cut) = (floor.max(start + 1)..end).rev().find(|&c| {
                text.get(
                    bounds.get(c - 1).copied().unwrap_or(0)..bounds.get(c).copied().unwrap_or(0),
                )
                .is_some_and(|s| s == "\n" || s == " ")
            }) {
                end = cut;
            }
        }
        let (from, to) = (
            bounds.get(start).copied().unwrap_or(0),
            bounds.get(end).copied().unwrap_or(0),
        );
        out.push(text.get(from..to).unwrap_or(""));
        if end >= chars {
            break;
        }
        start = end.saturating_sub(overlap).max(start + 1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_overlap_and_keep_words_whole() {
        let text = "alpha beta gamma delta epsilon zeta eta theta";
        let parts = windows(text, 20, 5);
        assert!(parts.iter().all(|p| p.chars().count() <= 20), "{parts:?}");
        assert_eq!(parts[0], "alpha beta gamma ");
        assert!(parts.last().is_some_and(|p| p.ends_with("theta")));
        let chinese = "一二三四五六七八九十".repeat(3);
        let parts = windows(&chinese, 12, 2);
        assert_eq!(parts[0].chars().count(), 12);
        assert!(parts[1].starts_with("一二"), "{parts:?}");
    }

    #[test]
    fn markdown_is_cut_at_headings_first() {
        let text = "Intro.\n# Install\nRun it.\n## Linux\nUse apt.\n";
        let chunks = chunk_file("guide/setup.md", text, &ChunkingConfig::default());
        let titles: Vec<&str> = chunks.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(
            titles,
            vec![
                "guide/setup.md",
                "guide/setup.md › Install",
                "guide/setup.md › Install › Linux"
            ]
        );
        let code = chunk_file(
            "src/lib.rs",
            "# not a heading\nfn main() {}\n",
            &ChunkingConfig::default(),
        );
        assert_eq!(code.len(), 1);
        assert_eq!(code[0].title, "src/lib.rs");
    }
}
