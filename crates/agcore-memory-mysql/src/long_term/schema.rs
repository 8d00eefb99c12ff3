//! The long-term memory tables (the `memory` layout of `docs/memory.md`,
//! *Tables*, with its weight, usage and archive columns).
//!
//! - `agcore_lt_scopes`: one row per (agent, user) with the scope's BM25
//!   statistics (entries and total length), so a search counts only its own
//!   scope's rows.
//! - `agcore_lt_entries`: the entries; `(scope_id, content_hash)` unique
//!   (the SHA-256 of the normalised content), so a duplicate save merges
//!   even when two processes save at once; `terms` holds the analyzer tokens
//!   of name, content and description as full-text words prefixed by the
//!   scope (`s42x…`, see [`crate::terms`]) under a `FULLTEXT` index: a
//!   `MATCH` finds only the scope's entries, and counts its document
//!   frequencies.
//!   There is no foreign key to the scope row: InnoDB's check would take a
//!   shared lock on it, and two saves upgrading theirs to update the
//!   scope's statistics would deadlock.
//! - `agcore_lt_history`, `agcore_lt_usage_log` (deleted with its entry),
//!   `agcore_lt_buffer` (the dialogue buffer).
//! - `agcore_lt_meta` (version 2): the analyzer that built the `terms`
//!   columns (`analyzer`; `keywords-v1` for entries written before it); on
//!   open an analyzer other than
//!   [`ANALYZER_ID`](agcore_search::ANALYZER_ID) is re-indexed
//!   ([`crate::reindex`]).
//! - `agcore_lt_terms` (version 3): each full-text word's document
//!   frequency in its scope, kept by the writers ([`super::df`]); the meta
//!   row `df` names the analyzer it was counted for, and on open a table
//!   counted for another (or never) is counted afresh.
//!
//! Text is stored as bytes (`LONGBLOB`, `VARBINARY`): compared and returned
//! exactly, whatever the server's character sets; times as microseconds
//! since the Unix epoch.

use crate::migrate::Component;

pub(crate) const COMPONENT: Component = Component {
    name: "long_term",
    steps: &[
        &[
            "CREATE TABLE IF NOT EXISTS agcore_lt_scopes (
            id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            agent_name VARBINARY(256) NOT NULL,
            user_id VARBINARY(256) NOT NULL,
            docs BIGINT NOT NULL DEFAULT 0,
            total_len BIGINT NOT NULL DEFAULT 0,
            UNIQUE KEY agcore_lt_scopes_names (agent_name, user_id)
        ) ENGINE = InnoDB",
            "CREATE TABLE IF NOT EXISTS agcore_lt_entries (
            id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            scope_id BIGINT NOT NULL,
            agent_name VARBINARY(256) NOT NULL,
            user_id VARBINARY(256) NOT NULL,
            memory_type VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
            name LONGBLOB NOT NULL,
            content LONGBLOB NOT NULL,
            description LONGBLOB NOT NULL,
            metadata LONGBLOB NOT NULL,
            tags LONGBLOB NOT NULL,
            weight DOUBLE NOT NULL,
            archived BOOLEAN NOT NULL,
            use_count BIGINT NOT NULL,
            last_used_at BIGINT NULL,
            weight_updated_at BIGINT NOT NULL,
            created_at BIGINT NOT NULL,
            updated_at BIGINT NOT NULL,
            content_hash BINARY(32) NOT NULL,
            len INT NOT NULL,
            terms LONGTEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
            UNIQUE KEY agcore_lt_entries_content (scope_id, content_hash),
            KEY agcore_lt_entries_scope (agent_name, user_id, id),
            FULLTEXT KEY agcore_lt_entries_terms (terms)
        ) ENGINE = InnoDB",
            "CREATE TABLE IF NOT EXISTS agcore_lt_history (
            id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            memory_id BIGINT NOT NULL,
            agent_name VARBINARY(256) NOT NULL,
            user_id VARBINARY(256) NOT NULL,
            name LONGBLOB NOT NULL,
            content LONGBLOB NOT NULL,
            reason VARCHAR(32) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
            recorded_at BIGINT NOT NULL,
            KEY agcore_lt_history_memory (agent_name, user_id, memory_id)
        ) ENGINE = InnoDB",
            "CREATE TABLE IF NOT EXISTS agcore_lt_usage_log (
            id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            memory_id BIGINT NOT NULL,
            session_id LONGBLOB NOT NULL,
            query LONGBLOB NOT NULL,
            was_referenced BOOLEAN NOT NULL,
            used_at BIGINT NOT NULL,
            KEY agcore_lt_usage_memory (memory_id),
            CONSTRAINT agcore_lt_usage_entry_fk FOREIGN KEY (memory_id)
                REFERENCES agcore_lt_entries (id) ON DELETE CASCADE
        ) ENGINE = InnoDB",
            "CREATE TABLE IF NOT EXISTS agcore_lt_buffer (
            id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            agent_name VARBINARY(256) NOT NULL,
            user_id VARBINARY(256) NOT NULL,
            session_id VARBINARY(256) NOT NULL,
            user_query LONGBLOB NOT NULL,
            assistant_response LONGBLOB NOT NULL,
            created_at BIGINT NOT NULL,
            applied_at BIGINT NULL,
            KEY agcore_lt_buffer_session (agent_name, user_id, session_id, id)
        ) ENGINE = InnoDB",
        ],
        &[
            "CREATE TABLE IF NOT EXISTS agcore_lt_meta (
            name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
            value VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
        ) ENGINE = InnoDB",
            "INSERT IGNORE INTO agcore_lt_meta (name, value) VALUES ('analyzer', 'keywords-v1')",
        ],
        &["CREATE TABLE IF NOT EXISTS agcore_lt_terms (
            word VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
            df BIGINT NOT NULL
        ) ENGINE = InnoDB"],
    ],
};
