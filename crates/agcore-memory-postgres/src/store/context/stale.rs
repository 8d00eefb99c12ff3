//! The settings record of the context fields, and marking it stale: the
//! leaf that re-indexing ([`crate::reindex`]) writes to, apart from the
//! derivation it triggers ([`super::sync`]).

use deadpool_postgres::Transaction;

use crate::error::Result;

/// The meta key recording the settings the fields were derived with.
pub(super) const META_KEY: &str = "context_field";

/// The value recorded when the postings were rebuilt without fields (after
/// a re-index): matches no settings, so [`super::sync`] derives them again.
pub(super) const STALE: &str = "stale";

/// Records that the fields must be derived again on the next
/// [`super::sync`] (the postings were rebuilt without them).
///
/// # Errors
/// [`crate::PostgresError`] from the server.
pub(crate) async fn mark_stale(tx: &Transaction<'_>) -> Result<()> {
    tx.execute(
        "INSERT INTO agcore_store_meta (key, value) VALUES ($1, $2)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&META_KEY, &STALE],
    )
    .await?;
    Ok(())
}
