//! The `<memory-context>` renderer: whatever the memories hold, the system
//! prompt has exactly one block, every entry's title stays on one line and
//! its content comes back exactly from the quoted lines.

use agcore_agent::long_term::format_memory_context;
use agcore_agent::long_term::{MEMORY_CONTEXT_PREAMBLE_EN, MEMORY_CONTEXT_PREAMBLE_ZH};
use agcore_llm::tokens::TokenCounter;
use agcore_memory::long_term::MemoryEntry;
use agcore_prompt::PromptComposer;
use agcore_prompt::untrusted::unescape;
use serde_json::json;

use crate::input::{Input, parts};

const TYPES: [&str; 4] = ["user", "project", "feedback", "reference"];

fn entry(id: usize, kind: &str, name: &str, content: &str, source: &str) -> MemoryEntry {
    serde_json::from_value(json!({
        "id": id, "agent_name": "a", "user_id": "u", "memory_type": kind, "name": name,
        "content": content, "description": "", "metadata": {"source": source},
        "tags": [], "weight": 1.0, "archived": false, "use_count": 0, "last_used_at": null,
        "weight_updated_at": "2026-01-01T00:00:00Z", "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z"
    }))
    .expect("a memory entry")
}

/// The first byte picks the header language; the rest is cut at NUL into
/// (name, content, source) triples, one per entry.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let flags = input.byte();
    let header = if flags.is_multiple_of(2) {
        MEMORY_CONTEXT_PREAMBLE_EN
    } else {
        MEMORY_CONTEXT_PREAMBLE_ZH
    };
    let text = input.text();
    let fields = parts(&text, '\0', 24);
    let entries: Vec<MemoryEntry> = fields
        .chunks(3)
        .enumerate()
        .map(|(i, f)| {
            let kind = TYPES[(usize::from(flags / 2) + i) % TYPES.len()];
            let get = |n: usize| f.get(n).copied().unwrap_or_default();
            entry(i + 1, kind, get(0), get(1), get(2))
        })
        .collect();
    let counter = TokenCounter::estimate();
    let Some((body, kept)) = format_memory_context(header, &entries, usize::MAX / 4, &counter)
    else {
        panic!("no entry fits an unlimited budget");
    };
    assert_eq!(kept.len(), entries.len());
    let composer = PromptComposer::new()
        .base("BASE")
        .memory_context(body.clone());
    let system = composer.system_prompt().expect("a system prompt");
    assert_eq!(system.matches("<memory-context>").count(), 1, "{system}");
    assert_eq!(system.matches("</memory-context>").count(), 1, "{system}");
    let block = system
        .split_once("<memory-context>\n")
        .and_then(|(_, rest)| rest.rsplit_once("\n</memory-context>"))
        .map(|(block, _)| block)
        .expect("the block");
    assert_eq!(block, body.trim(), "the composer changed the body");
    check_entries(&body, header, &kept);
}

/// Reads the entries back from `body`: a blank line, `[type] title`, then
/// only lines starting with `>`.
fn check_entries(body: &str, header: &str, entries: &[MemoryEntry]) {
    let rest = body
        .strip_prefix(header)
        .expect("the body opens with the header");
    let mut read: Vec<(String, Vec<String>)> = Vec::new();
    for line in rest.split('\n') {
        if line.is_empty() {
            continue;
        }
        if let Some(quoted) = line.strip_prefix('>') {
            let current = read.last_mut().expect("a quoted line before any title");
            current
                .1
                .push(quoted.strip_prefix(' ').unwrap_or(quoted).to_owned());
        } else {
            assert!(line.starts_with('['), "unquoted line {line:?}");
            read.push((line.to_owned(), Vec::new()));
        }
    }
    assert_eq!(read.len(), entries.len(), "entries in the block");
    for ((title, quoted), entry) in read.iter().zip(entries) {
        let prefix = format!("[{}] ", entry.memory_type);
        assert!(title.starts_with(&prefix), "{title:?}");
        assert!(
            !title.contains(['<', '>', '\r']),
            "markup in title {title:?}"
        );
        let content = unescape(&quoted.join("\n"));
        assert_eq!(content, entry.content.trim().replace("\r\n", "\n"));
    }
}
