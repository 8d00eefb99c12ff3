//! [`LongTermRows`]: the row operations of long-term memory on one SQL
//! connection or transaction, each one statement or a few of the driver's
//! SQL; the flows of [`super::flows`] combine them.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::super::backend::DialogueTurn;
use super::super::entry::MemoryEntry;
use super::super::scope::MemoryScope;
use super::conn::SqlConn;

/// The row operations of long-term memory over one connection of a SQL
/// driver, in or outside a write transaction (tables `agcore_lt_entries`,
/// `agcore_lt_scopes`, `agcore_lt_history`, `agcore_lt_usage_log`,
/// `agcore_lt_buffer`). A driver implements it with its SQL text and type
/// mapping; every statement names the scope. The statements every dialect
/// writes alike are [`statements`](super::statements) and
/// [`entries`](super::entries) (loading and listing entries, locked for
/// update where asked), over the [`SqlConn`] part.
#[async_trait]
pub trait LongTermRows: SqlConn {
    /// The scope's row id, created on first use.
    ///
    /// # Errors
    /// The driver's error.
    async fn scope_id(&mut self, scope: &MemoryScope) -> Result<i64, Self::Error>;

    /// The id of the entry of `scope` whose [`content_key`](super::super::content_key)
    /// is `key`, `None` when there is none.
    ///
    /// # Errors
    /// The driver's error.
    async fn id_by_key(
        &mut self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<i64>, Self::Error>;

    /// Entries `ids` of `scope`: one per id, in order (`None` when absent
    /// or in another scope).
    ///
    /// # Errors
    /// The driver's error.
    async fn load_many(
        &mut self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, Self::Error>;

    /// Inserts `entry` (its id ignored) into scope row `scope_id` with its
    /// index rows, unless its content key is taken there; returns the new
    /// id, or `None` when the key is taken (a concurrent insert won).
    ///
    /// # Errors
    /// The driver's error.
    async fn insert(
        &mut self,
        scope_id: i64,
        entry: &MemoryEntry,
    ) -> Result<Option<i64>, Self::Error>;

    /// Writes every column of `entry` of `scope` but its id, scope and
    /// creation time; `reindex` when its name, content or description may
    /// have changed (else only weights, flags and counters did).
    ///
    /// # Errors
    /// The driver's error.
    async fn store(
        &mut self,
        scope: &MemoryScope,
        entry: &MemoryEntry,
        reindex: bool,
    ) -> Result<(), Self::Error>;

    /// Deletes entry `id` (loaded and locked before) with its index rows.
    ///
    /// # Errors
    /// The driver's error.
    async fn remove(&mut self, id: i64) -> Result<(), Self::Error>;

    /// Appends the turn `(user_query, assistant_response)` to the dialogue
    /// buffer of (`scope`, `session_id`).
    ///
    /// # Errors
    /// The driver's error.
    async fn buffer_append(
        &mut self,
        scope: &MemoryScope,
        session_id: &str,
        turn: (&str, &str),
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, Self::Error>;
}
