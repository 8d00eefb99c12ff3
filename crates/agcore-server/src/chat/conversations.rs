//! The open conversations of the server's chat: a bounded map from
//! (scope, session id) to the agent session holding the conversation.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use agcore::agent::AgentSession;
use agcore::memory::long_term::MemoryScope;

use crate::agents::AgentRecord;

/// One conversation: the session and the agent record it was built from
/// (a changed record rebuilds the session, keeping the history).
pub(crate) struct Conversation {
    pub(crate) session: AgentSession,
    pub(crate) record: AgentRecord,
}

/// A conversation's place in the map; locked for the length of a turn, so
/// turns of one conversation run one after the other.
pub(crate) type Slot = Arc<tokio::sync::Mutex<Option<Conversation>>>;

struct Entry {
    slot: Slot,
    used: u64,
}

/// The conversations, at most `max`; the least recently used one leaves
/// when a new one needs its place (its memory work is finished in the
/// background). Keyed by scope too, so a session id never reaches another
/// scope's conversation.
pub(crate) struct Conversations {
    max: usize,
    clock: AtomicU64,
    entries: Mutex<HashMap<(MemoryScope, String), Entry>>,
}

impl Conversations {
    pub(crate) fn new(max: usize) -> Self {
        Self {
            max: max.max(1),
            clock: AtomicU64::new(0),
            entries: Mutex::new(HashMap::new()),
        }
    }

    pub(crate) fn set_max(&mut self, max: usize) {
        self.max = max.max(1);
    }

    /// The slot of conversation `session` in `scope`, created empty when new.
    pub(crate) fn slot(&self, scope: &MemoryScope, session: &str) -> Slot {
        let now = self.clock.fetch_add(1, Ordering::Relaxed);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (scope.clone(), session.to_owned());
        if let Some(entry) = entries.get_mut(&key) {
            entry.used = now;
            return Arc::clone(&entry.slot);
        }
        while entries.len() >= self.max {
            let Some(oldest) = entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(evicted) = entries.remove(&oldest) {
                tokio::spawn(finish_slot(evicted.slot));
            }
        }
        let slot = Slot::default();
        entries.insert(
            key,
            Entry {
                slot: Arc::clone(&slot),
                used: now,
            },
        );
        slot
    }

    /// Number of open conversations.
    pub(crate) fn len(&self) -> usize {
        self.entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Finishes the memory work of every conversation (waiting for running turns).
    pub(crate) async fn finish(&self) {
        let slots: Vec<Slot> = self
            .entries
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|e| Arc::clone(&e.slot))
            .collect();
        for slot in slots {
            finish_slot(slot).await;
        }
    }
}

/// Finishes the memory work of the conversation in `slot`, if any.
pub(crate) async fn finish_slot(slot: Slot) {
    let mut guard = slot.lock().await;
    if let Some(conversation) = guard.as_mut() {
        finish_session(&mut conversation.session).await;
    }
}

/// [`AgentSession::finish`], its failure logged.
pub(crate) async fn finish_session(session: &mut AgentSession) {
    if let Err(err) = session.finish().await {
        tracing::warn!(error = %err, "chat: memory extraction of a conversation failed");
    }
}
