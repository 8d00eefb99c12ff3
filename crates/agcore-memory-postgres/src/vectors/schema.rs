//! The pgvector extension, the vector tables and their versioned setup
//! (`agcore_vectors_meta` holds the layout version and the embedding space).

use agcore_memory::vector::EmbeddingSpace;
use agcore_memory::vector::layout::check_layout;
use deadpool_postgres::Client;

use crate::error::PostgresError;

/// Layout version this library writes.
pub(crate) const VERSION: i64 = 1;

/// Advisory-lock key serialising extension and table setup across sessions.
const SETUP_LOCK: i64 = 0x6167_7665_6374;

/// Quotes an SQL identifier.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Installs pgvector in `public` if it is missing, creates the tables in the
/// connection's schema on first use (an HNSW index with
/// `vector_cosine_ops`) and checks `space` against the recorded one.
/// Returns the quoted schema holding pgvector's type and operators.
/// With `reset`, first drops the vectors table and the recorded space in
/// the same transaction, so `space` is recorded afresh.
///
/// # Errors
/// [`MemoryError::EmbeddingMismatch`](agcore_memory::MemoryError::EmbeddingMismatch)
/// for another space ([`check_layout`]); a newer layout;
/// server errors (pgvector not installed on the server among them).
pub(crate) async fn setup(
    client: &mut Client,
    space: &EmbeddingSpace,
    reset: bool,
) -> Result<String, PostgresError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&SETUP_LOCK])
        .await?;
    tx.batch_execute("CREATE EXTENSION IF NOT EXISTS vector SCHEMA public")
        .await?;
    let row = tx
        .query_one(
            "SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
             WHERE e.extname = 'vector'",
            &[],
        )
        .await?;
    let ext = quote_ident(&row.get::<_, String>(0));
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS agcore_vectors_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    )
    .await?;
    if reset {
        tx.batch_execute("DROP TABLE IF EXISTS agcore_vectors; DELETE FROM agcore_vectors_meta;")
            .await?;
    }
    let rows = tx
        .query("SELECT key, value FROM agcore_vectors_meta", &[])
        .await?;
    let meta = |key: &str| {
        rows.iter()
            .find(|r| r.get::<_, &str>(0) == key)
            .map(|r| r.get::<_, String>(1))
    };
    match meta("version") {
        None => {
            let dims = space.dimensions;
            tx.batch_execute(&format!(
                "CREATE TABLE agcore_vectors (
                     namespace    TEXT NOT NULL,
                     id           TEXT NOT NULL,
                     embedding    {ext}.vector({dims}) NOT NULL,
                     content_hash TEXT NOT NULL,
                     PRIMARY KEY (namespace, id));
                 CREATE INDEX agcore_vectors_hnsw ON agcore_vectors
                     USING hnsw (embedding {ext}.vector_cosine_ops);"
            ))
            .await?;
            tx.execute(
                "INSERT INTO agcore_vectors_meta (key, value) VALUES
                 ('version', $1), ('model', $2), ('dimensions', $3)",
                &[&VERSION.to_string(), &space.model, &dims.to_string()],
            )
            .await?;
        }
        Some(version) => {
            let (model, dims) = (meta("model"), meta("dimensions"));
            let recorded = (version.as_str(), model.as_deref(), dims.as_deref());
            check_layout("postgres", VERSION, recorded, space)?;
        }
    }
    tx.commit().await?;
    Ok(ext)
}
