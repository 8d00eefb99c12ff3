//! What one [`MysqlLongTerm`](super::MysqlLongTerm) has seen of rows that
//! are never deleted or renumbered while the database is open, so a write
//! need not look them up again: scope rows (ids) and document-frequency
//! rows (words; only [`super::df::sync`] deletes them, under the migration
//! lock, before any write of this version). A stale answer cannot corrupt
//! anything: a word row assumed to exist is inserted by the write's own
//! statement all the same. Each set is bounded and forgotten at once past
//! its limit.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use agcore_memory::long_term::MemoryScope;
use agcore_search::doc_freq::KnownWords;
use mysql_async::Conn;

use super::scopes;
use crate::error::Result;

/// Most scopes remembered.
const MAX_SCOPES: usize = 100_000;

#[derive(Debug, Default)]
pub(crate) struct Seen {
    words: KnownWords,
    scopes: Mutex<HashMap<(String, String), i64>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Seen {
    /// The word rows known to exist.
    pub(crate) fn words(&self) -> &KnownWords {
        &self.words
    }

    /// The scope's row id, created on first use (see [`scopes::scope_id`])
    /// and committed at once: `conn` is no transaction.
    pub(crate) async fn scope_id(&self, conn: &mut Conn, scope: &MemoryScope) -> Result<i64> {
        if let Some(id) = self.known_scope_id(scope) {
            return Ok(id);
        }
        let id = scopes::scope_id(conn, scope).await?;
        let mut seen = lock(&self.scopes);
        if seen.len() >= MAX_SCOPES {
            seen.clear();
        }
        seen.insert((scope.agent().to_owned(), scope.user().to_owned()), id);
        Ok(id)
    }

    /// The scope's row id when seen before.
    pub(crate) fn known_scope_id(&self, scope: &MemoryScope) -> Option<i64> {
        let key = (scope.agent().to_owned(), scope.user().to_owned());
        lock(&self.scopes).get(&key).copied()
    }
}
