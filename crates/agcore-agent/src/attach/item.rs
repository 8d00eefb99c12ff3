//! [`AttachedItem`]: the record every attached store persists (seed 003's
//! `MemoryItem`), and its mapping onto agcore's [`MemoryItem`].

use agcore_memory::MemoryItem;
use agcore_types::{ChatMessage, ContentPart, MessageContent};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

/// Characters of the input kept in `metadata.input_preview`.
pub const INPUT_PREVIEW_CHARS: usize = 200;

/// One memory of an attached store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachedItem {
    /// Unique id within its store.
    pub id: String,
    /// The short text retrieval searches and the memory block shows.
    pub content_summary: String,
    /// The turn's input messages, whole (content parts, `data:` URIs with
    /// base64 attachments); empty for file chunks.
    #[serde(default)]
    pub input_snapshot: Vec<ChatMessage>,
    /// The turn's output messages, whole; empty for file chunks.
    #[serde(default)]
    pub output_snapshot: Vec<ChatMessage>,
    /// `role`, `input_preview`, `attachment_ids` for turns; `source`,
    /// `chunk` for file chunks; anything a user's store adds.
    #[serde(default)]
    pub metadata: Value,
    /// When it was written (UTC).
    pub created_at: DateTime<Utc>,
}

/// Key of the snapshots inside an agcore [`MemoryItem`]'s metadata.
const SNAPSHOT_KEY: &str = "attach";

impl AttachedItem {
    /// The item of one turn: `summary` as its text, the messages as
    /// snapshots, and metadata with the input's role, a preview of its
    /// text and the ids of its non-text parts.
    pub fn from_turn(
        id: impl Into<String>,
        summary: String,
        input: &[ChatMessage],
        output: &[ChatMessage],
    ) -> Self {
        let input_text = messages_text(input);
        let role = input
            .last()
            .and_then(|m| serde_json::to_value(m.role).ok())
            .unwrap_or(Value::Null);
        Self {
            id: id.into(),
            content_summary: summary,
            input_snapshot: input.to_vec(),
            output_snapshot: output.to_vec(),
            metadata: json!({
                "role": role,
                "input_preview": input_text.chars().take(INPUT_PREVIEW_CHARS).collect::<String>(),
                "attachment_ids": attachment_ids(input.iter().chain(output)),
            }),
            created_at: Utc::now(),
        }
    }

    /// The agcore item: `content` is the summary (what full-text search
    /// indexes); metadata holds the item's metadata and, under `attach`,
    /// the snapshots.
    pub fn to_memory_item(&self) -> MemoryItem {
        let mut metadata = match &self.metadata {
            Value::Object(map) => map.clone(),
            Value::Null => serde_json::Map::new(),
            other => serde_json::Map::from_iter([("value".to_owned(), other.clone())]),
        };
        if !self.input_snapshot.is_empty() || !self.output_snapshot.is_empty() {
            metadata.insert(
                SNAPSHOT_KEY.to_owned(),
                json!({"input_snapshot": self.input_snapshot, "output_snapshot": self.output_snapshot}),
            );
        }
        MemoryItem::new(self.id.clone(), self.content_summary.clone())
            .with_metadata(Value::Object(metadata))
            .with_created_at(self.created_at)
    }

    /// The item back from an agcore item written by [`Self::to_memory_item`]
    /// (snapshots that do not parse are left empty).
    pub fn from_memory_item(item: MemoryItem) -> Self {
        let mut metadata = item.metadata;
        let snapshots = metadata
            .as_object_mut()
            .and_then(|m| m.remove(SNAPSHOT_KEY))
            .unwrap_or(Value::Null);
        let messages = |key: &str| -> Vec<ChatMessage> {
            snapshots
                .get(key)
                .cloned()
                .and_then(|v| serde_json::from_value(v).ok())
                .unwrap_or_default()
        };
        Self {
            id: item.id,
            content_summary: item.content,
            input_snapshot: messages("input_snapshot"),
            output_snapshot: messages("output_snapshot"),
            metadata,
            created_at: item.created_at,
        }
    }
}

/// The text of `messages`, one per line (non-text parts left out).
pub fn messages_text(messages: &[ChatMessage]) -> String {
    messages
        .iter()
        .map(ChatMessage::text)
        .filter(|t| !t.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// SHA-256 of `text`, hex, first 32 characters: the dedupe key of a summary.
pub fn summary_hash(text: &str) -> String {
    let mut hex = format!("{:x}", Sha256::digest(text.as_bytes()));
    hex.truncate(32);
    hex
}

/// Ids of the images, audio and files in `messages`: `att:` and the
/// summary hash of the part's JSON.
fn attachment_ids<'a>(messages: impl Iterator<Item = &'a ChatMessage>) -> Vec<String> {
    messages
        .filter_map(|m| match &m.content {
            Some(MessageContent::Parts(parts)) => Some(parts),
            _ => None,
        })
        .flatten()
        .filter(|part| !matches!(part, ContentPart::Text { .. } | ContentPart::Refusal { .. }))
        .filter_map(|part| serde_json::to_string(part).ok())
        .map(|json| format!("att:{}", summary_hash(&json)))
        .collect()
}

#[cfg(test)]
mod tests {
    use agcore_types::ImageUrl;

    use super::*;

    #[test]
    fn summary_hash_is_the_first_32_hex_digits_of_sha256() {
        assert_eq!(
            summary_hash("summary 总结"),
            "07dbd4a45a3948d95f265de071ad4a59"
        );
    }

    #[test]
    fn snapshots_round_trip_through_an_agcore_item() {
        let input = vec![ChatMessage::user_parts(vec![
            ContentPart::Text {
                text: "看这张图".into(),
            },
            ContentPart::ImageUrl {
                image_url: ImageUrl {
                    url: "data:image/png;base64,iVBORw0KGgo=".into(),
                    detail: None,
                },
            },
        ])];
        let output = vec![ChatMessage::assistant("一只猫")];
        let item = AttachedItem::from_turn("t1", "看这张图 → 一只猫".into(), &input, &output);
        assert_eq!(item.metadata["role"], "user");
        assert_eq!(item.metadata["input_preview"], "看这张图");
        assert_eq!(item.metadata["attachment_ids"].as_array().unwrap().len(), 1);
        let back = AttachedItem::from_memory_item(item.to_memory_item());
        assert_eq!(back, item);
    }
}
