//! Coverage-guided fuzz targets of agcore.
//!
//! Each module exercises one public API with untrusted bytes and checks its
//! invariants; a violated invariant panics, which is what the fuzzer reports
//! as a crash. [`run`] dispatches to a [`Target`]; the `agcore-fuzz` binary
//! (feature `afl`) feeds it from AFL++, and `tests/replay.rs` replays every
//! committed corpus and regression file through it. See `docs/fuzzing.md`.

// The harness exists to panic on a violated invariant.
#![allow(clippy::panic, clippy::unwrap_used, clippy::expect_used)]
#![allow(clippy::indexing_slicing)]

mod analyzer;
mod config;
mod fts_mysql;
mod fts_sqlite;
mod input;
mod jsonl;
mod mcp;
mod memory_context;
mod plan;
mod runtime;
mod sse;
mod template;

pub use input::Input;

/// One fuzz target: an API and its invariants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The SSE decoder of `agcore-llm`: never panics, same events for every
    /// chunking of the same bytes, at most one error and nothing after it.
    Sse,
    /// The JSON plan parser: never panics, parsed plans round-trip.
    Plan,
    /// Template rendering with untrusted values: values are never template
    /// syntax; template sources never panic the parser.
    Template,
    /// The query analyzer and tokeniser (CJK, mixed scripts).
    Analyzer,
    /// The SQLite FTS5 `MATCH` builder through the public search API.
    FtsSqlite,
    /// The MySQL / MariaDB `MATCH … AGAINST` text builder.
    FtsMysql,
    /// JSONL import lines: the `MemoryEntry` records of `agcore memory import`.
    Jsonl,
    /// The attachment configuration (YAML and TOML).
    Config,
    /// MCP message handling: JSON-RPC messages, tool results, tool names.
    Mcp,
    /// The `<memory-context>` renderer: one block, content intact.
    MemoryContext,
}

impl Target {
    /// Every target, in the order `cargo xtask fuzz all` runs them.
    pub const ALL: [Target; 10] = [
        Target::Sse,
        Target::Plan,
        Target::Template,
        Target::Analyzer,
        Target::FtsSqlite,
        Target::FtsMysql,
        Target::Jsonl,
        Target::Config,
        Target::Mcp,
        Target::MemoryContext,
    ];

    /// The target's name: its corpus directory under `fuzz/corpus/`.
    pub fn name(self) -> &'static str {
        match self {
            Target::Sse => "sse",
            Target::Plan => "plan",
            Target::Template => "template",
            Target::Analyzer => "analyzer",
            Target::FtsSqlite => "fts_sqlite",
            Target::FtsMysql => "fts_mysql",
            Target::Jsonl => "jsonl",
            Target::Config => "config",
            Target::Mcp => "mcp",
            Target::MemoryContext => "memory_context",
        }
    }

    /// The target called `name`, if any.
    pub fn from_name(name: &str) -> Option<Target> {
        Target::ALL.into_iter().find(|t| t.name() == name)
    }
}

/// Runs `target` on `data`; panics when an invariant does not hold.
pub fn run(target: Target, data: &[u8]) {
    match target {
        Target::Sse => sse::run(data),
        Target::Plan => plan::run(data),
        Target::Template => template::run(data),
        Target::Analyzer => analyzer::run(data),
        Target::FtsSqlite => fts_sqlite::run(data),
        Target::FtsMysql => fts_mysql::run(data),
        Target::Jsonl => jsonl::run(data),
        Target::Config => config::run(data),
        Target::Mcp => mcp::run(data),
        Target::MemoryContext => memory_context::run(data),
    }
}
