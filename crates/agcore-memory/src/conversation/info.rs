//! [`ConversationInfo`]: the summary record of a conversation kept by its
//! owner (agent and user), so conversations can be listed and resumed.

use std::sync::Arc;

use agcore_types::{ChatMessage, Role};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::ConversationMemory;
use crate::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};

/// Id prefix of conversation summary records: `conv-info:{session}`.
pub const CONVERSATION_INFO_PREFIX: &str = "conv-info:";

/// Longest `first_user_line` kept, in characters.
const FIRST_LINE_CHARS: usize = 200;

/// What one stored conversation is: its owner, when it started, its last
/// turn, how many user turns it had and how it began. Written by a
/// [`ConversationMemory`] with an owner ([`ConversationMemory::with_owner`])
/// at each user message; listed by [`list_conversations`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ConversationInfo {
    /// The conversation (session) id.
    pub session_id: String,
    /// The agent that holds the conversation.
    pub agent: String,
    /// The user it is held with.
    pub user: String,
    /// When its first user message was stored (UTC).
    pub started_at: DateTime<Utc>,
    /// When its last user message was stored (UTC).
    pub last_turn_at: DateTime<Utc>,
    /// User messages stored so far (turns evicted by the window count too).
    pub turns: u64,
    /// The first line of the first user message, at most 200 characters.
    pub first_user_line: String,
}

/// The stored conversations of `agent` and `user` in `store`, the most
/// recent last turn first.
///
/// # Errors
/// [`MemoryError::Serialization`] for a summary record that does not
/// decode; the store's errors.
pub async fn list_conversations(
    store: &Arc<dyn MemoryStore>,
    agent: &str,
    user: &str,
) -> Result<Vec<ConversationInfo>, MemoryError> {
    let filter = MemoryFilter::with_prefix(CONVERSATION_INFO_PREFIX)
        .metadata_eq("agent", agent.into())
        .metadata_eq("user", user.into());
    let mut out = store
        .list(&filter)
        .await?
        .iter()
        .map(decode)
        .collect::<Result<Vec<_>, _>>()?;
    out.sort_by(|a, b| {
        b.last_turn_at
            .cmp(&a.last_turn_at)
            .then_with(|| b.session_id.cmp(&a.session_id))
    });
    Ok(out)
}

fn decode(item: &MemoryItem) -> Result<ConversationInfo, MemoryError> {
    serde_json::from_value(item.metadata.clone())
        .map_err(|e| MemoryError::Serialization(format!("conversation record `{}`: {e}", item.id)))
}

fn first_line(message: &ChatMessage) -> String {
    let text = message.text();
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    line.chars().take(FIRST_LINE_CHARS).collect()
}

impl ConversationMemory {
    /// Records the conversation as one of `agent` and `user`: each user
    /// message then updates its [`ConversationInfo`] (creating it at the
    /// first), so [`list_conversations`] finds it.
    #[must_use]
    pub fn with_owner(mut self, agent: impl Into<String>, user: impl Into<String>) -> Self {
        self.owner = Some((agent.into(), user.into()));
        self
    }

    /// The owner set by [`ConversationMemory::with_owner`], as `(agent, user)`.
    pub fn owner(&self) -> Option<(&str, &str)> {
        self.owner.as_ref().map(|(a, u)| (a.as_str(), u.as_str()))
    }

    fn info_id(&self) -> String {
        format!("{CONVERSATION_INFO_PREFIX}{}", self.session_id)
    }

    /// The conversation's summary record, `None` before its first user
    /// message or when it has no owner.
    ///
    /// # Errors
    /// [`MemoryError::Serialization`] for a record that does not decode;
    /// the store's errors.
    pub async fn info(&self) -> Result<Option<ConversationInfo>, MemoryError> {
        match self.store.get(&self.info_id()).await? {
            Some(item) => decode(&item).map(Some),
            None => Ok(None),
        }
    }

    /// After storing `message`: a user message of an owned conversation
    /// counts a turn in the summary record.
    pub(super) async fn record_turn(&self, message: &ChatMessage) -> Result<(), MemoryError> {
        let Some((agent, user)) = &self.owner else {
            return Ok(());
        };
        if message.role != Role::User {
            return Ok(());
        }
        let now = Utc::now();
        let info = match self.info().await? {
            Some(mut info) => {
                info.turns += 1;
                info.last_turn_at = now;
                info
            }
            None => ConversationInfo {
                session_id: self.session_id.clone(),
                agent: agent.clone(),
                user: user.clone(),
                started_at: now,
                last_turn_at: now,
                turns: 1,
                first_user_line: first_line(message),
            },
        };
        let metadata = serde_json::to_value(&info)?;
        let item =
            MemoryItem::new(self.info_id(), info.first_user_line.clone()).with_metadata(metadata);
        self.store.save(item).await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ConversationMemoryConfig, InMemoryStore};

    #[tokio::test]
    async fn owned_conversations_are_listed_newest_first() {
        let store: Arc<dyn MemoryStore> = Arc::new(InMemoryStore::new());
        let open = |id: &str, user: &str| {
            ConversationMemory::new(Arc::clone(&store), id, ConversationMemoryConfig::full())
                .unwrap()
                .with_owner("assistant", user)
        };
        let first = open("s1", "alice");
        first
            .add_message(ChatMessage::user("\n  你好，我想泡茶\nsecond line"))
            .await
            .unwrap();
        first
            .add_message(ChatMessage::assistant("好的"))
            .await
            .unwrap();
        let other = open("s2", "bob");
        other.add_message(ChatMessage::user("hi")).await.unwrap();
        let second = open("s3", "alice");
        second
            .add_message(ChatMessage::user("later"))
            .await
            .unwrap();
        first.add_message(ChatMessage::user("again")).await.unwrap();
        let unowned =
            ConversationMemory::new(Arc::clone(&store), "s4", ConversationMemoryConfig::full())
                .unwrap();
        unowned
            .add_message(ChatMessage::user("nobody"))
            .await
            .unwrap();

        let listed = list_conversations(&store, "assistant", "alice")
            .await
            .unwrap();
        let ids: Vec<&str> = listed.iter().map(|i| i.session_id.as_str()).collect();
        assert_eq!(ids, ["s1", "s3"]);
        assert_eq!(listed[0].turns, 2);
        assert_eq!(listed[0].first_user_line, "你好，我想泡茶");
        assert!(listed[0].started_at <= listed[0].last_turn_at);
        assert_eq!(listed[1].turns, 1);
        assert_eq!(unowned.info().await.unwrap(), None);
        // Records never show up as messages of a conversation.
        assert_eq!(first.get_history().await.unwrap().len(), 3);
    }
}
