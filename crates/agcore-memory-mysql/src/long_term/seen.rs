//! What one [`MysqlLongTerm`](super::MysqlLongTerm) has seen of rows that
//! are never deleted or renumbered while the database is open, so a write
//! need not look them up again: scope rows ([`ScopeIds`]) and
//! document-frequency rows ([`KnownWords`]; only [`super::df::sync`]
//! deletes them, under the migration lock, before any write of this
//! version). A stale answer cannot corrupt anything: a word row assumed to
//! exist is inserted by the write's own statement all the same.

use agcore_memory::long_term::{MemoryScope, ScopeIds};
use agcore_search::doc_freq::KnownWords;
use mysql_async::Conn;

use super::scopes;
use crate::error::Result;

#[derive(Debug, Default)]
pub(crate) struct Seen {
    words: KnownWords,
    scopes: ScopeIds,
}

impl Seen {
    /// The word rows known to exist.
    pub(crate) fn words(&self) -> &KnownWords {
        &self.words
    }

    /// The scope's row id, created on first use (see [`scopes::scope_id`])
    /// and committed at once: `conn` is no transaction.
    pub(crate) async fn scope_id(&self, conn: &mut Conn, scope: &MemoryScope) -> Result<i64> {
        if let Some(id) = self.scopes.get(scope) {
            return Ok(id);
        }
        let id = scopes::scope_id(conn, scope).await?;
        self.scopes.remember(scope, id);
        Ok(id)
    }

    /// The scope's row id when seen before.
    pub(crate) fn known_scope_id(&self, scope: &MemoryScope) -> Option<i64> {
        self.scopes.get(scope)
    }
}
