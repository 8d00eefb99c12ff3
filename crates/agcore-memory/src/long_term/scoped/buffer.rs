//! The dialogue buffer of a scope through [`ScopedMemory`]: turns appended,
//! read while pending and marked applied.

use super::{ScopedMemory, validate_session};
use crate::MemoryError;
use crate::long_term::backend::DialogueTurn;
use crate::long_term::normalize::now;

impl ScopedMemory {
    /// Appends a turn to the dialogue buffer of `session_id`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_append(
        &self,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
    ) -> Result<DialogueTurn, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_append(
                &self.scope,
                session_id,
                user_query,
                assistant_response,
                now(),
            )
            .await
    }

    /// Unapplied turns of `session_id`, oldest first, at most `limit`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_pending(
        &self,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_pending(&self.scope, session_id, limit)
            .await
    }

    /// Marks the turns of `session_id` up to id `up_to` as applied (kept
    /// until then, so a failed extraction is retried).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad session id; [`MemoryError::Storage`].
    pub async fn buffer_mark_applied(
        &self,
        session_id: &str,
        up_to: i64,
    ) -> Result<usize, MemoryError> {
        validate_session(session_id)?;
        self.backend
            .buffer_mark_applied(&self.scope, session_id, up_to, now())
            .await
    }
}
