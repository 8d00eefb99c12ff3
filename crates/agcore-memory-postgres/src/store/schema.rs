//! The store's tables.
//!
//! - `agcore_items`: one row per item; `content` as `BYTEA` (PostgreSQL text
//!   cannot hold NUL, item content can), `metadata` as the exact JSON text and
//!   `meta` as `JSONB` for metadata filters, `created_at` as seconds plus
//!   nanoseconds (timestamps are only microseconds), `len` the number of
//!   analyzer tokens (BM25's document length).
//! - `agcore_postings (term, doc, tf, len, ctf, clen)` (the last two since
//!   version 3: the context field), `doc` the item's row number
//!   (an identity column: smaller index entries and faster grouping than
//!   text ids): the inverted index over agcore's
//!   analyzer tokens (the same as SQLite's: lowercased words without stop
//!   words, stemmed, CJK character bigrams;
//!   [`index_terms`](agcore_search::index_terms)), so rankings
//!   match across backends. The
//!   primary key covers `tf` and `len`, so scoring reads only the index
//!   (an index-only scan), never the items; postings are deleted with their
//!   item by the store (no foreign-key trigger on the hot insert path).
//! - `agcore_item_stats`: document count and total length in 16 shards, so
//!   concurrent writers do not queue on one counter row; BM25 sums them.
//! - `agcore_store_meta`: the analyzer that built the index (key
//!   `analyzer`; version 1 wrote `keywords-v1`, plain keywords); on open, an
//!   analyzer other than
//!   [`ANALYZER_ID`](agcore_search::ANALYZER_ID) is re-indexed
//!   ([`crate::reindex`]).
//!
//! Version 2 marks databases re-indexed with the stemming analyzer, so
//! earlier releases (which would write unstemmed postings) refuse them.
//!
//! Version 3 adds the context field ([`super::context`]): `agcore_items.grp`
//! (the item's sequence, `NULL` when none) with the index
//! `agcore_items_group (grp, created_s, created_ns, id)` (neighbours in
//! list order, and lists of one sequence), `agcore_items.context_len`;
//! postings gain `ctf` and `clen` (the term's frequency in the context field
//! and that field's length) in the covering key; the statistics gain the
//! number of items in a sequence and their summed context length; and
//! `agcore_store_meta` records the settings the fields were derived with
//! (key `context_field`, `null` for existing rows, so the first open derives
//! them).

use crate::migrate::Component;

/// Counter rows of `agcore_item_stats`.
pub(crate) const STAT_SHARDS: i16 = 16;

pub(crate) const COMPONENT: Component = Component {
    name: "store",
    steps: &[
        r#"
CREATE TABLE agcore_items (
    id TEXT COLLATE "C" PRIMARY KEY,
    doc BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
    content BYTEA NOT NULL,
    metadata TEXT NOT NULL,
    meta JSONB,
    created_s BIGINT NOT NULL,
    created_ns INTEGER NOT NULL,
    len INTEGER NOT NULL
);
CREATE INDEX agcore_items_created ON agcore_items (created_s, created_ns, id);
CREATE INDEX agcore_items_meta ON agcore_items USING GIN (meta jsonb_path_ops);
CREATE TABLE agcore_postings (
    term TEXT COLLATE "C" NOT NULL,
    doc BIGINT NOT NULL,
    tf INTEGER NOT NULL,
    len INTEGER NOT NULL,
    PRIMARY KEY (term, doc) INCLUDE (tf, len)
);
CREATE INDEX agcore_postings_doc ON agcore_postings (doc);
CREATE TABLE agcore_item_stats (
    shard SMALLINT PRIMARY KEY,
    docs BIGINT NOT NULL,
    total_len BIGINT NOT NULL
);
INSERT INTO agcore_item_stats (shard, docs, total_len)
    SELECT s, 0, 0 FROM generate_series(0, 15) AS s;
CREATE TABLE agcore_store_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO agcore_store_meta (key, value) VALUES ('analyzer', 'keywords-v1');
"#,
        r#"
COMMENT ON TABLE agcore_store_meta IS
    'agcore: the analyzer (key analyzer) that built agcore_postings; re-indexed on open when it differs';
"#,
        r#"
ALTER TABLE agcore_items
    ADD COLUMN grp TEXT COLLATE "C",
    ADD COLUMN context_len INTEGER NOT NULL DEFAULT 0;
CREATE INDEX agcore_items_group ON agcore_items (grp, created_s, created_ns, id)
    WHERE grp IS NOT NULL;
ALTER TABLE agcore_postings
    ADD COLUMN ctf INTEGER NOT NULL DEFAULT 0,
    ADD COLUMN clen INTEGER NOT NULL DEFAULT 0,
    DROP CONSTRAINT agcore_postings_pkey;
ALTER TABLE agcore_postings
    ADD CONSTRAINT agcore_postings_pkey PRIMARY KEY (term, doc) INCLUDE (tf, len, ctf, clen);
ALTER TABLE agcore_item_stats
    ADD COLUMN grouped BIGINT NOT NULL DEFAULT 0,
    ADD COLUMN context_len BIGINT NOT NULL DEFAULT 0;
INSERT INTO agcore_store_meta (key, value) VALUES ('context_field', 'null')
    ON CONFLICT (key) DO NOTHING;
"#,
    ],
};
