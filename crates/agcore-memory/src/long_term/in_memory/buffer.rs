//! The dialogue buffer of [`InMemoryLongTerm`]: turns appended, read while
//! pending and marked applied.

use chrono::{DateTime, Utc};

use super::InMemoryLongTerm;
use super::data::BufferedTurn;
use crate::MemoryError;
use crate::long_term::backend::DialogueTurn;
use crate::long_term::scope::MemoryScope;

impl InMemoryLongTerm {
    /// [`LongTermBackend::buffer_append`](crate::long_term::LongTermBackend::buffer_append).
    pub(super) fn append_turn(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        let mut state = self.lock()?;
        let id = state.next_turn.saturating_add(1);
        state.next_turn = id;
        let turn = DialogueTurn {
            id,
            session_id: session_id.to_owned(),
            user_query: user_query.to_owned(),
            assistant_response: assistant_response.to_owned(),
            created_at: now,
        };
        state
            .scopes
            .entry(scope.clone())
            .or_default()
            .buffer
            .push(BufferedTurn {
                turn: turn.clone(),
                applied_at: None,
            });
        Ok(turn)
    }

    /// [`LongTermBackend::buffer_pending`](crate::long_term::LongTermBackend::buffer_pending).
    pub(super) fn pending_turns(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        let state = self.lock()?;
        Ok(state
            .scopes
            .get(scope)
            .map(|d| {
                d.buffer
                    .iter()
                    .filter(|t| t.applied_at.is_none() && t.turn.session_id == session_id)
                    .take(limit)
                    .map(|t| t.turn.clone())
                    .collect()
            })
            .unwrap_or_default())
    }

    /// [`LongTermBackend::buffer_mark_applied`](crate::long_term::LongTermBackend::buffer_mark_applied).
    pub(super) fn mark_turns_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let mut state = self.lock()?;
        let Some(data) = state.scopes.get_mut(scope) else {
            return Ok(0);
        };
        let mut n = 0;
        for t in data.buffer.iter_mut().filter(|t| {
            t.applied_at.is_none() && t.turn.session_id == session_id && t.turn.id <= up_to
        }) {
            t.applied_at = Some(now);
            n += 1;
        }
        Ok(n)
    }
}
