//! The store's tables.
//!
//! - `agcore_items`: one row per item, numbered by `doc` (the clustered key:
//!   appends, never page splits on random ids); `id` unique; `content` as
//!   bytes (any text, NUL included); `metadata` the exact JSON text (also
//!   read by `JSON_CONTAINS` for filters); `created_at` as seconds plus
//!   nanoseconds; `len` the number of analyzer tokens (BM25's document
//!   length); `terms` the analyzer tokens as full-text words (see
//!   [`crate::terms`]) under a `FULLTEXT` index, which search queries with
//!   `MATCH … AGAINST (… IN BOOLEAN MODE)`.
//! - `agcore_item_stats`: document count and total length in 16 shards, so
//!   concurrent writers do not queue on one counter row; BM25 sums them.
//! - `agcore_store_meta`: the analyzer and word encoding that built the
//!   index (`analyzer`: `keywords-v1` in version 1, plain keywords; `words`:
//!   `hex-v1`); on open, an analyzer other than
//!   [`ANALYZER_ID`](agcore_search::ANALYZER_ID) is re-indexed
//!   ([`crate::reindex`]).
//!
//! - `agcore_item_context`, `agcore_context_stats`, `agcore_item_groups`:
//!   the context field's sequence memberships and fields, their statistics
//!   and one lock row per sequence (see `store/context/mod.rs`).
//! - `agcore_item_terms` (version 4): each full-text word's document
//!   frequency over both BM25F fields, kept by the writers (`store/df.rs`);
//!   the meta row `df` records the analyzer and context field it was
//!   counted for, and on open a table counted for others (or never) is
//!   counted afresh.
//!
//! Version 2 marks databases re-indexed with the stemming analyzer, so
//! earlier releases (which would write unstemmed terms) refuse them.
//! Version 3 adds the context field's tables, so earlier releases (which
//! would not keep the fields current) refuse them too. Version 4 adds the
//! document frequencies, for the same reason.

use crate::migrate::Component;

/// Counter rows of `agcore_item_stats`.
pub(crate) const STAT_SHARDS: i16 = 16;

pub(crate) const COMPONENT: Component = Component {
    name: "store",
    steps: &[&[
        "CREATE TABLE IF NOT EXISTS agcore_items (
            doc BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
            id VARBINARY(512) NOT NULL,
            content LONGBLOB NOT NULL,
            metadata LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
            created_s BIGINT NOT NULL,
            created_ns INT NOT NULL,
            len INT NOT NULL,
            terms LONGTEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
            UNIQUE KEY agcore_items_id (id),
            KEY agcore_items_created (created_s, created_ns, id),
            FULLTEXT KEY agcore_items_terms (terms)
        ) ENGINE = InnoDB",
        "CREATE TABLE IF NOT EXISTS agcore_item_stats (
            shard SMALLINT NOT NULL PRIMARY KEY,
            docs BIGINT NOT NULL,
            total_len BIGINT NOT NULL
        ) ENGINE = InnoDB",
        "INSERT IGNORE INTO agcore_item_stats (shard, docs, total_len) VALUES
            (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0), (5, 0, 0), (6, 0, 0), (7, 0, 0),
            (8, 0, 0), (9, 0, 0), (10, 0, 0), (11, 0, 0), (12, 0, 0), (13, 0, 0), (14, 0, 0), (15, 0, 0)",
        "CREATE TABLE IF NOT EXISTS agcore_store_meta (
            name VARCHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
            value VARCHAR(255) CHARACTER SET ascii COLLATE ascii_bin NOT NULL
        ) ENGINE = InnoDB",
        "INSERT IGNORE INTO agcore_store_meta (name, value) VALUES ('analyzer', 'keywords-v1'), ('words', 'hex-v1')",
    ], &[
        "ALTER TABLE agcore_store_meta COMMENT = 'agcore: the analyzer (name analyzer) that built agcore_items.terms; re-indexed on open when it differs'",
    ], &[
        "CREATE TABLE IF NOT EXISTS agcore_item_context (
            doc BIGINT NOT NULL PRIMARY KEY,
            grp BINARY(32) NOT NULL,
            created_s BIGINT NOT NULL,
            created_ns INT NOT NULL,
            id VARBINARY(512) NOT NULL,
            context_len INT NOT NULL,
            context_terms LONGTEXT CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
            KEY agcore_item_context_seq (grp, created_s, created_ns, id),
            FULLTEXT KEY agcore_item_context_terms (context_terms)
        ) ENGINE = InnoDB",
        "CREATE TABLE IF NOT EXISTS agcore_context_stats (
            shard SMALLINT NOT NULL PRIMARY KEY,
            grouped BIGINT NOT NULL,
            context_len BIGINT NOT NULL
        ) ENGINE = InnoDB",
        "INSERT IGNORE INTO agcore_context_stats (shard, grouped, context_len) VALUES
            (0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0), (4, 0, 0), (5, 0, 0), (6, 0, 0), (7, 0, 0),
            (8, 0, 0), (9, 0, 0), (10, 0, 0), (11, 0, 0), (12, 0, 0), (13, 0, 0), (14, 0, 0), (15, 0, 0)",
        "CREATE TABLE IF NOT EXISTS agcore_item_groups (
            grp BINARY(32) NOT NULL PRIMARY KEY
        ) ENGINE = InnoDB",
    ], &[
        "CREATE TABLE IF NOT EXISTS agcore_item_terms (
            word VARCHAR(128) CHARACTER SET ascii COLLATE ascii_bin NOT NULL PRIMARY KEY,
            df BIGINT NOT NULL
        ) ENGINE = InnoDB",
    ]],
};
