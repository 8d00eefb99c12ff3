//! Size limits on every long-term input that grows: entry titles,
//! descriptions, tags, metadata and search queries. Content has its own
//! limit, [`MAX_ENTRY_CONTENT_BYTES`](super::MAX_ENTRY_CONTENT_BYTES).
//!
//! Writes over a limit are refused with [`MemoryError::InvalidInput`] naming
//! the field (nothing is written); search queries over
//! [`MAX_QUERY_BYTES`] are truncated, because a query is derived from a user
//! message that may legitimately be long (a pasted document) and the first
//! kilobytes carry what retrieval can use.

use serde_json::{Map, Value};

use crate::MemoryError;

/// Longest entry title, in bytes of UTF-8.
pub const MAX_ENTRY_NAME_BYTES: usize = 512;
/// Longest entry description, in bytes of UTF-8.
pub const MAX_ENTRY_DESCRIPTION_BYTES: usize = 4 * 1024;
/// Most tags on one entry (after de-duplication).
pub const MAX_ENTRY_TAGS: usize = 64;
/// Longest tag, in bytes of UTF-8.
pub const MAX_TAG_BYTES: usize = 128;
/// Largest metadata object, in bytes of its compact JSON serialisation.
pub const MAX_ENTRY_METADATA_BYTES: usize = 64 * 1024;
/// Longest search query used, in bytes of UTF-8; a longer query is cut at
/// the last character boundary within the limit.
pub const MAX_QUERY_BYTES: usize = 4 * 1024;

fn too_long(field: &str, len: usize, max: usize, unit: &str) -> MemoryError {
    MemoryError::InvalidInput(format!("memory {field} is {len} {unit} (max {max})"))
}

/// Checks the optional fields of a write: `name`, `description`, `tags` and
/// `metadata`, each `None` when the write leaves it unchanged.
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the first field over its limit.
pub(crate) fn validate_fields(
    name: Option<&str>,
    description: Option<&str>,
    tags: Option<&[String]>,
    metadata: Option<&Map<String, Value>>,
) -> Result<(), MemoryError> {
    if let Some(name) = name.filter(|n| n.len() > MAX_ENTRY_NAME_BYTES) {
        return Err(too_long("name", name.len(), MAX_ENTRY_NAME_BYTES, "bytes"));
    }
    if let Some(d) = description.filter(|d| d.len() > MAX_ENTRY_DESCRIPTION_BYTES) {
        return Err(too_long(
            "description",
            d.len(),
            MAX_ENTRY_DESCRIPTION_BYTES,
            "bytes",
        ));
    }
    if let Some(tags) = tags {
        if tags.len() > MAX_ENTRY_TAGS {
            return Err(too_long("tag list", tags.len(), MAX_ENTRY_TAGS, "tags"));
        }
        if let Some(tag) = tags.iter().find(|t| t.len() > MAX_TAG_BYTES) {
            return Err(too_long("tag", tag.len(), MAX_TAG_BYTES, "bytes"));
        }
    }
    if let Some(metadata) = metadata {
        let len = serde_json::to_vec(metadata).map_or(usize::MAX, |bytes| bytes.len());
        if len > MAX_ENTRY_METADATA_BYTES {
            return Err(too_long(
                "metadata",
                len,
                MAX_ENTRY_METADATA_BYTES,
                "bytes of JSON",
            ));
        }
    }
    Ok(())
}

/// `query` cut to at most [`MAX_QUERY_BYTES`] at a character boundary.
pub fn clip_query(query: &str) -> &str {
    if query.len() <= MAX_QUERY_BYTES {
        return query;
    }
    let mut end = MAX_QUERY_BYTES;
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    tracing::debug!(
        bytes = query.len(),
        kept = end,
        "long-term search query truncated"
    );
    query.get(..end).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_field_is_checked_and_named() {
        assert!(validate_fields(Some("t"), Some("d"), Some(&[]), None).is_ok());
        let long = "x".repeat(MAX_ENTRY_NAME_BYTES + 1);
        let err = validate_fields(Some(&long), None, None, None).unwrap_err();
        assert!(err.to_string().contains("name"), "{err}");
        let long = "x".repeat(MAX_ENTRY_DESCRIPTION_BYTES + 1);
        let err = validate_fields(None, Some(&long), None, None).unwrap_err();
        assert!(err.to_string().contains("description"), "{err}");
        let tags: Vec<String> = (0..=MAX_ENTRY_TAGS).map(|n| n.to_string()).collect();
        let err = validate_fields(None, None, Some(&tags), None).unwrap_err();
        assert!(err.to_string().contains("tag list"), "{err}");
        let tags = vec!["t".repeat(MAX_TAG_BYTES + 1)];
        let err = validate_fields(None, None, Some(&tags), None).unwrap_err();
        assert!(err.to_string().contains("tag is"), "{err}");
        let mut metadata = Map::new();
        metadata.insert(
            "k".into(),
            Value::String("v".repeat(MAX_ENTRY_METADATA_BYTES)),
        );
        let err = validate_fields(None, None, None, Some(&metadata)).unwrap_err();
        assert!(err.to_string().contains("metadata"), "{err}");
    }

    #[test]
    fn queries_are_cut_at_a_character_boundary() {
        assert_eq!(clip_query("green tea"), "green tea");
        let chinese = "茶".repeat(MAX_QUERY_BYTES); // 3 bytes each
        let clipped = clip_query(&chinese);
        assert!(clipped.len() <= MAX_QUERY_BYTES && clipped.len() > MAX_QUERY_BYTES - 3);
        assert!(clipped.chars().all(|c| c == '茶'));
    }
}
