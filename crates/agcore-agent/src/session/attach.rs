//! The memory-attachment steps of a turn (see `docs/memory-attachments.md`,
//! *Stages*): before a turn, `pre` and the turn's own stage (`gen` for a
//! plain turn, `plan` or `critique` for a task agent's planning or review
//! turn) are retrieved together; a finished `gen` turn is recorded after it.

use agcore_types::{ChatMessage, Role};

use super::AgentSession;
use crate::attach::Stage;

impl AgentSession {
    /// The attachments' block for a turn at `stage` whose user message is
    /// `query`, or `None`. A failed retrieval is logged and injects nothing.
    pub(super) async fn attachments_before_turn(
        &self,
        stage: Stage,
        query: &str,
    ) -> Option<String> {
        let manager = self.bundle.attachments.as_ref()?;
        match manager.retrieve_at(&[Stage::Pre, stage], query).await {
            Ok(block) => block.map(|b| b.text),
            Err(err) => {
                tracing::warn!(error = %err, "memory attachments: retrieval failed; nothing injected");
                None
            }
        }
    }

    /// Records a committed `gen` turn — the messages after the first
    /// `before` of the history: the user's message as input, the rest as
    /// output — in the attachments with `write: true`. Planning and review
    /// turns are not recorded (their output is a plan or a critique, not an
    /// answer). Failures are logged.
    pub(super) async fn attachments_after_turn(&self, stage: Stage, before: usize) {
        let Some(manager) = self
            .bundle
            .attachments
            .as_ref()
            .filter(|_| stage == Stage::Gen)
        else {
            return;
        };
        let turn = self.history.get(before..).unwrap_or_default();
        let Some((first, rest)) = turn.split_first().filter(|(m, _)| m.role == Role::User) else {
            tracing::debug!(
                "memory attachments: the turn's messages were compacted; nothing recorded"
            );
            return;
        };
        let input: Vec<ChatMessage> = vec![first.clone()];
        if let Err(err) = manager.update(&input, rest).await {
            tracing::warn!(error = %err, "memory attachments: update failed");
        }
    }
}
