//! Items to and from Redis: the write payload the Lua script reads, the
//! time-ordered index key, and items rebuilt from their hash.

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionPolicy, MemoryItem};
use agcore_search::collection::term_counts;
use agcore_search::index_terms;
use chrono::{DateTime, TimeZone, Utc};

use crate::error::{Result, storage};

/// Added to a time's seconds so that every second of chrono's range is a
/// non-negative 20-digit number whose decimal order is time order.
const SECONDS_OFFSET: i64 = 1 << 62;

/// The Redis key `name` under the store's `prefix` (`prefix:name`).
pub(crate) fn key(prefix: &str, name: &str) -> String {
    format!("{prefix}:{name}")
}

/// The member of the `created` sorted set: 20 digits of seconds, 9 of
/// nanoseconds, NUL, the id — so lexicographic order is (time, id) order and
/// the id starts at byte 31 (the script's `string.sub(ckey, 31)`).
pub(crate) fn created_key(at: DateTime<Utc>, id: &str) -> String {
    format!("{}\0{id}", time_prefix(at))
}

/// The 29-digit time part of [`created_key`], for range bounds.
pub(crate) fn time_prefix(at: DateTime<Utc>) -> String {
    let secs = u64::try_from(at.timestamp().saturating_add(SECONDS_OFFSET)).unwrap_or(0);
    format!(
        "{secs:020}{:09}",
        at.timestamp_subsec_nanos().min(999_999_999)
    )
}

/// The index fields of `item` the script reads (`len`, `tf`, and `grp`,
/// its sequence under `context`, when it has one), added to `object`.
pub(crate) fn index_fields(
    object: &mut serde_json::Map<String, serde_json::Value>,
    item: &MemoryItem,
    context: Option<&ContextField>,
) {
    let tokens = index_terms(&item.content);
    object.insert("len".into(), tokens.len().into());
    object.insert("tf".into(), serde_json::json!(term_counts(tokens)));
    if let Some(group) = context.and_then(|c| c.group_of(item)) {
        object.insert("grp".into(), group.into());
    }
}

/// The save payload of `items` for the script: one JSON object each.
pub(crate) fn payload(
    items: &[MemoryItem],
    policy: &EvictionPolicy,
    context: Option<&ContextField>,
) -> Result<String> {
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let expire = match policy {
            EvictionPolicy::Ttl { ttl_secs } => {
                let ttl = i64::try_from(*ttl_secs)
                    .unwrap_or(i64::MAX / 1_000)
                    .saturating_mul(1_000);
                item.created_at
                    .timestamp_millis()
                    .saturating_add(ttl)
                    .max(1)
            }
            _ => 0,
        };
        let mut object = serde_json::Map::new();
        object.insert("id".into(), item.id.clone().into());
        object.insert("content".into(), item.content.clone().into());
        object.insert(
            "metadata".into(),
            serde_json::to_string(&item.metadata)?.into(),
        );
        object.insert("s".into(), item.created_at.timestamp().to_string().into());
        object.insert(
            "ns".into(),
            item.created_at.timestamp_subsec_nanos().to_string().into(),
        );
        object.insert("ckey".into(), created_key(item.created_at, &item.id).into());
        object.insert("expire".into(), expire.into());
        index_fields(&mut object, item, context);
        out.push(serde_json::Value::Object(object));
    }
    Ok(serde_json::to_string(&out)?)
}

/// The fields of an item hash, in [`ITEM_FIELDS`] order.
pub(crate) type ItemFields = (Option<Vec<u8>>, Option<String>, Option<i64>, Option<u32>);

/// The hash fields read back: content, metadata, seconds, nanoseconds.
pub(crate) const ITEM_FIELDS: [&str; 4] = ["content", "metadata", "s", "ns"];

/// The item `id` from its hash fields, `None` when the hash is gone.
///
/// # Errors
/// A storage error for a hash this library did not write.
pub(crate) fn item_from(id: &str, fields: ItemFields) -> Result<Option<MemoryItem>> {
    let (Some(content), Some(metadata), Some(secs), Some(nanos)) = fields else {
        return Ok(None);
    };
    let content = String::from_utf8(content)
        .map_err(|_| storage(format!("redis: content of `{id}` is not UTF-8")))?;
    let created_at = Utc
        .timestamp_opt(secs, nanos)
        .single()
        .ok_or_else(|| storage(format!("redis: time of `{id}` is out of range")))?;
    Ok(Some(MemoryItem {
        id: id.to_owned(),
        content,
        metadata: serde_json::from_str(&metadata)?,
        created_at,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn created_keys_sort_by_time_then_id() {
        let at = |s, ns| Utc.timestamp_opt(s, ns).unwrap();
        let mut keys = [
            created_key(at(10, 5), "b"),
            created_key(at(-3, 0), "z"),
            created_key(at(10, 5), "a"),
            created_key(at(10, 40), "a"),
        ];
        keys.sort();
        let ids: Vec<&str> = keys.iter().map(|k| &k[30..]).collect();
        assert_eq!(ids, ["z", "a", "b", "a"]);
        assert_eq!(created_key(at(0, 0), "x").find('\0'), Some(29));
    }
}
