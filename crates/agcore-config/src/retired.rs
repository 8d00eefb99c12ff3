//! Seed keys and values agcore spells otherwise or lacks, with what to
//! write instead.

/// Seed keys agcore does not have (snake_case dotted paths; camelCase
/// spellings match too), with what to write instead.
pub(super) const RETIRED: [(&str, &str); 5] = [
    (
        "memory.long_term.vector_index",
        "seed 002's switch is not implemented: dense retrieval is on when the \
         file has an `[embedding]` section, and `[retrieval] mode` picks lexical, dense or hybrid",
    ),
    (
        "memory.backend",
        "seed 004 §8's `backend` is `memory.long_term.backend` (`sqlite`, `memory`, \
         `mysql`, `postgres` or a storage URL), or an agent's own `memory.backend`",
    ),
    (
        "memory.sqlite_path",
        "seed 004 §8's `sqlitePath` is `memory.long_term.path`",
    ),
    (
        "memory.prefetch_limit",
        "seed 004 §8's `prefetchLimit` is `memory.long_term.max_return`",
    ),
    (
        "memory.long_term.prefetch_limit",
        "seed 004 §8's `prefetchLimit` is `memory.long_term.max_return`",
    ),
];

/// Values spelled otherwise in agcore: (key path, value, hint).
pub(super) const VALUE_HINTS: [(&str, &str, &str); 1] = [(
    "memory.long_term.backend",
    "redis",
    "Redis holds no long-term memory; use `sqlite`, `mysql`, `postgres` or a URL of one of them",
)];
