//! The long-term memory tables (the `memory` layout of `docs/memory.md`,
//! *Tables*, with its weight, usage and archive columns).
//!
//! - `agcore_lt_scopes`: one row per (agent, user) with the scope's BM25
//!   statistics (entries and total length), so a search counts only its own
//!   scope's rows.
//! - `agcore_lt_entries`: the entries; `(scope_id, content_key)` unique, so a
//!   duplicate save merges even when two processes save at once.
//! - `agcore_lt_postings (scope_id, term, entry_id, tf)`: the inverted index
//!   over agcore's analyzer tokens of name, content and description, keyed by
//!   scope first; since version 4 each posting also holds its entry's `len`,
//!   `archived` and `memory_type` (kept current by a trigger on the entries)
//!   in the covering index `agcore_lt_postings_scoring`, which search reads
//!   alone.
//!   Indexed by `(agent_name, user_id, id)` too (version 2), for listing.
//! - `agcore_lt_history`, `agcore_lt_usage_log` (deleted with its entry),
//!   `agcore_lt_buffer` (the dialogue buffer).
//! - `agcore_lt_meta` (version 3): the analyzer that built the postings
//!   (key `analyzer`; `keywords-v1` for entries written before it); on open
//!   an analyzer other than
//!   [`ANALYZER_ID`](agcore_search::ANALYZER_ID) is re-indexed
//!   ([`crate::reindex`]).

use crate::migrate::Component;

pub(crate) const COMPONENT: Component = Component {
    name: "long_term",
    steps: &[
        r#"
CREATE TABLE agcore_lt_scopes (
    id BIGSERIAL PRIMARY KEY,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    docs BIGINT NOT NULL DEFAULT 0,
    total_len BIGINT NOT NULL DEFAULT 0,
    UNIQUE (agent_name, user_id)
);
CREATE TABLE agcore_lt_entries (
    id BIGSERIAL PRIMARY KEY,
    scope_id BIGINT NOT NULL REFERENCES agcore_lt_scopes (id),
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    memory_type TEXT NOT NULL CHECK (memory_type IN ('user', 'project', 'feedback', 'reference')),
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    description TEXT NOT NULL,
    metadata TEXT NOT NULL,
    tags TEXT NOT NULL,
    weight DOUBLE PRECISION NOT NULL,
    archived BOOLEAN NOT NULL,
    use_count BIGINT NOT NULL,
    last_used_at TIMESTAMPTZ,
    weight_updated_at TIMESTAMPTZ NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL,
    content_key TEXT NOT NULL,
    len INTEGER NOT NULL,
    UNIQUE (scope_id, content_key)
);
CREATE INDEX agcore_lt_entries_scope ON agcore_lt_entries (scope_id, id);
CREATE TABLE agcore_lt_postings (
    scope_id BIGINT NOT NULL,
    term TEXT COLLATE "C" NOT NULL,
    entry_id BIGINT NOT NULL REFERENCES agcore_lt_entries (id) ON DELETE CASCADE,
    tf INTEGER NOT NULL,
    PRIMARY KEY (scope_id, term, entry_id)
);
CREATE INDEX agcore_lt_postings_entry ON agcore_lt_postings (entry_id);
CREATE TABLE agcore_lt_history (
    id BIGSERIAL PRIMARY KEY,
    memory_id BIGINT NOT NULL,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    name TEXT NOT NULL,
    content TEXT NOT NULL,
    reason TEXT NOT NULL,
    recorded_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX agcore_lt_history_memory ON agcore_lt_history (agent_name, user_id, memory_id);
CREATE TABLE agcore_lt_usage_log (
    id BIGSERIAL PRIMARY KEY,
    memory_id BIGINT NOT NULL REFERENCES agcore_lt_entries (id) ON DELETE CASCADE,
    session_id TEXT NOT NULL,
    query TEXT NOT NULL,
    was_referenced BOOLEAN NOT NULL,
    used_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX agcore_lt_usage_memory ON agcore_lt_usage_log (memory_id);
CREATE TABLE agcore_lt_buffer (
    id BIGSERIAL PRIMARY KEY,
    agent_name TEXT NOT NULL,
    user_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_query TEXT NOT NULL,
    assistant_response TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL,
    applied_at TIMESTAMPTZ
);
CREATE INDEX agcore_lt_buffer_session ON agcore_lt_buffer (agent_name, user_id, session_id, id);
"#,
        // Version 2: listing, archiving and maintenance select a scope's entries
        // by agent and user; without this index each scanned every entry.
        r#"
CREATE INDEX IF NOT EXISTS agcore_lt_entries_names ON agcore_lt_entries (agent_name, user_id, id);
"#,
        // Version 3: the analyzer record; the entries so far were indexed
        // with plain keywords and are re-indexed right after.
        r#"
CREATE TABLE agcore_lt_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO agcore_lt_meta (key, value) VALUES ('analyzer', 'keywords-v1');
"#,
        // Version 4: each posting carries what scoring and the search's
        // filters read of its entry (length, archive flag, type) in a
        // covering index, so a search reads one index range per term instead
        // of looking up every matching entry (the store's postings carry
        // lengths the same way). A trigger keeps the copies current however
        // an entry is updated.
        r#"
ALTER TABLE agcore_lt_postings
    ADD COLUMN len INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN archived BOOLEAN NOT NULL DEFAULT FALSE,
    ADD COLUMN memory_type TEXT NOT NULL DEFAULT 'user';
UPDATE agcore_lt_postings p SET len = m.len, archived = m.archived, memory_type = m.memory_type
    FROM agcore_lt_entries m WHERE m.id = p.entry_id;
CREATE INDEX agcore_lt_postings_scoring ON agcore_lt_postings (scope_id, term)
    INCLUDE (entry_id, tf, len, archived, memory_type);
CREATE FUNCTION agcore_lt_postings_follow() RETURNS trigger LANGUAGE plpgsql
    SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE agcore_lt_postings
        SET len = NEW.len, archived = NEW.archived, memory_type = NEW.memory_type
        WHERE entry_id = NEW.id;
    RETURN NULL;
END
$$;
CREATE TRIGGER agcore_lt_postings_follow
    AFTER UPDATE OF len, archived, memory_type ON agcore_lt_entries
    FOR EACH ROW
    WHEN (OLD.len IS DISTINCT FROM NEW.len OR OLD.archived IS DISTINCT FROM NEW.archived
          OR OLD.memory_type IS DISTINCT FROM NEW.memory_type)
    EXECUTE FUNCTION agcore_lt_postings_follow();
"#,
    ],
};
