//! [`ConversationMemory`]: per-session chat history over any [`MemoryStore`].

mod config;
mod info;
mod search;
mod window;

use std::sync::Arc;

use agcore_llm::compact::{microcompact, should_compact};
use agcore_types::ChatMessage;
use tokio::sync::Mutex;

pub use config::ConversationMemoryConfig;
pub use info::{CONVERSATION_INFO_PREFIX, ConversationInfo, list_conversations};

use crate::{MAX_ID_BYTES, MemoryError, MemoryFilter, MemoryItem, MemoryStore, MemoryStrategy};

/// Id prefix of every conversation message: `conv:{session}:{seq:020}`.
pub const CONVERSATION_PREFIX: &str = "conv:";

/// Longest accepted session id, in bytes (so message ids fit [`MAX_ID_BYTES`]).
pub const MAX_SESSION_ID_BYTES: usize = MAX_ID_BYTES - CONVERSATION_PREFIX.len() - 1 - 20;

/// One stored message with its sequence number.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredMessage {
    /// Position in the session, strictly increasing from 0.
    pub seq: u64,
    /// The message.
    pub message: ChatMessage,
}

/// The message history of one session (see `docs/memory.md`, *Conversation history*).
///
/// Each message is one [`MemoryItem`] with id `conv:{session}:{seq:020}`
/// (sequence number zero-padded, so history order never depends on clocks),
/// the message text as content (searchable) and the whole message as JSON in
/// `metadata.message`. After each [`add_message`](Self::add_message):
/// 1. the strategy's window is applied (sliding window: older user turns deleted),
/// 2. capacity: the oldest messages beyond `max_messages` are deleted, and a
///    tool result whose call was deleted goes with it,
/// 3. compaction: when [`should_compact`] says so, [`microcompact`] shrinks
///    old tool results, written back in place.
///
/// Writes to one `ConversationMemory` are serialised by an async mutex; use
/// one instance per session.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use agcore_memory::{ConversationMemory, ConversationMemoryConfig, InMemoryStore};
/// use agcore_types::ChatMessage;
///
/// let store = Arc::new(InMemoryStore::new());
/// let memory = ConversationMemory::new(store, "s1", ConversationMemoryConfig::sliding_window(1))?;
/// memory.add_message(ChatMessage::user("hi")).await?;
/// memory.add_message(ChatMessage::assistant("hello")).await?;
/// memory.add_message(ChatMessage::user("bye")).await?;
/// let history = memory.get_history().await?;
/// assert_eq!(history.len(), 1);
/// assert_eq!(history[0].text(), "bye");
/// # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
/// ```
pub struct ConversationMemory {
    store: Arc<dyn MemoryStore>,
    session_id: String,
    config: ConversationMemoryConfig,
    /// Next sequence number; `None` until read from the store.
    next_seq: Mutex<Option<u64>>,
    /// `(agent, user)` whose conversation this is ([`Self::with_owner`]).
    owner: Option<(String, String)>,
}

impl std::fmt::Debug for ConversationMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConversationMemory")
            .field("session_id", &self.session_id)
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl ConversationMemory {
    /// History of `session_id` in `store`. Existing messages of the session
    /// are picked up (numbering continues after the highest stored one).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] when `session_id` is empty, longer than
    /// [`MAX_SESSION_ID_BYTES`], or holds `:` or NUL (which would let one
    /// session's prefix select another's messages).
    pub fn new(
        store: Arc<dyn MemoryStore>,
        session_id: impl Into<String>,
        config: ConversationMemoryConfig,
    ) -> Result<Self, MemoryError> {
        let session_id = session_id.into();
        if session_id.is_empty() || session_id.len() > MAX_SESSION_ID_BYTES {
            return Err(MemoryError::InvalidInput(format!(
                "session id must be 1–{MAX_SESSION_ID_BYTES} bytes, got {}",
                session_id.len()
            )));
        }
        if session_id.contains([':', '\0']) {
            return Err(MemoryError::InvalidInput(
                "session id must not contain `:` or NUL".into(),
            ));
        }
        Ok(Self {
            store,
            session_id,
            config,
            next_seq: Mutex::new(None),
            owner: None,
        })
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The configuration.
    pub fn config(&self) -> &ConversationMemoryConfig {
        &self.config
    }

    /// `conv:{session}:`, the id prefix of this session's messages.
    pub fn prefix(&self) -> String {
        format!("{CONVERSATION_PREFIX}{}:", self.session_id)
    }

    fn item_id(&self, seq: u64) -> String {
        format!("{}{seq:020}", self.prefix())
    }

    /// Appends `message`, then applies window, capacity and compaction (see
    /// the type docs); a user message of a conversation with an owner
    /// ([`Self::with_owner`]) also updates its [`ConversationInfo`].
    /// Returns the message's sequence number.
    ///
    /// # Errors
    /// [`MemoryError::Serialization`] if a stored message cannot be decoded;
    /// the store's errors (e.g. [`MemoryError::InvalidInput`] for content over
    /// the size limit, with nothing written).
    pub async fn add_message(&self, message: ChatMessage) -> Result<u64, MemoryError> {
        let mut next = self.next_seq.lock().await;
        let seq = match *next {
            Some(seq) => seq,
            None => self.entries().await?.last().map_or(0, |m| m.seq + 1),
        };
        self.store.save(self.to_item(seq, &message)?).await?;
        *next = Some(seq + 1);
        tracing::trace!(session = %self.session_id, seq, "conversation message stored");
        self.record_turn(&message).await?;
        self.enforce_limits().await?;
        Ok(seq)
    }

    /// The session's messages, oldest first.
    ///
    /// # Errors
    /// As [`Self::entries`].
    pub async fn get_history(&self) -> Result<Vec<ChatMessage>, MemoryError> {
        Ok(self
            .entries()
            .await?
            .into_iter()
            .map(|m| m.message)
            .collect())
    }

    /// The session's messages with their sequence numbers, ascending.
    ///
    /// # Errors
    /// [`MemoryError::Serialization`] for a stored message that does not
    /// decode; the store's errors.
    pub async fn entries(&self) -> Result<Vec<StoredMessage>, MemoryError> {
        let items = self
            .store
            .list(&MemoryFilter::with_prefix(self.prefix()))
            .await?;
        let mut out = items
            .iter()
            .map(Self::from_item)
            .collect::<Result<Vec<_>, _>>()?;
        out.sort_by_key(|m| m.seq);
        Ok(out)
    }

    /// Number of stored messages.
    ///
    /// # Errors
    /// The store's errors.
    pub async fn len(&self) -> Result<usize, MemoryError> {
        self.store
            .count(&MemoryFilter::with_prefix(self.prefix()))
            .await
    }

    /// Whether the session has no messages.
    ///
    /// # Errors
    /// The store's errors.
    pub async fn is_empty(&self) -> Result<bool, MemoryError> {
        Ok(self.len().await? == 0)
    }

    /// Deletes every message of the session. Numbering continues (ids are not reused).
    ///
    /// # Errors
    /// The store's errors; messages deleted before a failure stay deleted.
    pub async fn clear(&self) -> Result<(), MemoryError> {
        let _guard = self.next_seq.lock().await;
        let items = self
            .store
            .list(&MemoryFilter::with_prefix(self.prefix()))
            .await?;
        for item in items {
            self.store.delete(&item.id).await?;
        }
        Ok(())
    }

    async fn enforce_limits(&self) -> Result<(), MemoryError> {
        let needs_window = matches!(self.config.strategy, MemoryStrategy::SlidingWindow { .. });
        if !needs_window
            && self.config.max_messages.is_none()
            && self.config.compact_config.is_none()
        {
            return Ok(());
        }
        let mut entries = self.entries().await?;
        let mut evict = Vec::new();
        if let MemoryStrategy::SlidingWindow { max_turns } = self.config.strategy {
            evict.extend(window::outside_window(&entries, max_turns));
        }
        if let Some(max) = self.config.max_messages {
            evict.extend(window::over_capacity(&entries, &evict, max));
        }
        if !evict.is_empty() {
            for seq in &evict {
                self.store.delete(&self.item_id(*seq)).await?;
            }
            entries.retain(|m| !evict.contains(&m.seq));
            tracing::debug!(session = %self.session_id, evicted = evict.len(), "conversation eviction");
        }
        if let Some(compact) = &self.config.compact_config {
            let mut messages: Vec<ChatMessage> =
                entries.iter().map(|m| m.message.clone()).collect();
            if should_compact(&messages, compact) && microcompact(&mut messages, compact) > 0 {
                for (entry, message) in entries.iter().zip(messages) {
                    if entry.message != message {
                        self.store.save(self.to_item(entry.seq, &message)?).await?;
                    }
                }
            }
        }
        Ok(())
    }

    fn to_item(&self, seq: u64, message: &ChatMessage) -> Result<MemoryItem, MemoryError> {
        let metadata = serde_json::json!({
            "session": self.session_id,
            "seq": seq,
            "role": message.role.as_str(),
            "message": serde_json::to_value(message)?,
        });
        Ok(MemoryItem::new(self.item_id(seq), message.text()).with_metadata(metadata))
    }

    fn from_item(item: &MemoryItem) -> Result<StoredMessage, MemoryError> {
        let seq = item
            .metadata
            .get("seq")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| {
                MemoryError::Serialization(format!("conversation item `{}` has no seq", item.id))
            })?;
        let message = item.metadata.get("message").cloned().ok_or_else(|| {
            MemoryError::Serialization(format!("conversation item `{}` has no message", item.id))
        })?;
        Ok(StoredMessage {
            seq,
            message: serde_json::from_value(message)?,
        })
    }
}
