//! How records become keys and values: JSON values, keys of a scope or
//! namespace followed by an id.

use agcore_memory::long_term::MemoryScope;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::backend::{KvError, Table};

/// The JSON bytes of `value`.
pub(crate) fn encode<T: Serialize>(table: Table, value: &T) -> Result<Vec<u8>, KvError> {
    serde_json::to_vec(value).map_err(|e| KvError::Corrupt {
        table: table.name(),
        reason: format!("cannot encode: {e}"),
    })
}

/// The value of JSON `bytes` read from `table`.
pub(crate) fn decode<T: DeserializeOwned>(table: Table, bytes: &[u8]) -> Result<T, KvError> {
    serde_json::from_slice(bytes).map_err(|e| KvError::Corrupt {
        table: table.name(),
        reason: e.to_string(),
    })
}

/// `len(part) as u32 BE`, then `part`: keys that start with it never
/// start with another part's encoding.
fn push_part(key: &mut Vec<u8>, part: &[u8]) {
    let len = u32::try_from(part.len()).unwrap_or(u32::MAX);
    key.extend_from_slice(&len.to_be_bytes());
    key.extend_from_slice(part);
}

/// The key prefix of every record of `scope`.
pub(crate) fn scope_prefix(scope: &MemoryScope) -> Vec<u8> {
    let mut key = Vec::new();
    push_part(&mut key, scope.agent().as_bytes());
    push_part(&mut key, scope.user().as_bytes());
    key
}

/// The key of record `id` of `scope` (entries, history, usage, turns).
pub(crate) fn scope_key(scope: &MemoryScope, id: i64) -> Vec<u8> {
    let mut key = scope_prefix(scope);
    key.extend_from_slice(&id.to_be_bytes());
    key
}

/// The key of vector `id` of `namespace`.
pub(crate) fn vector_key(namespace: &str, id: &str) -> Vec<u8> {
    let mut key = Vec::new();
    push_part(&mut key, namespace.as_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_one_scope_share_its_prefix_only() {
        let a = MemoryScope::new("agent", "用户").unwrap();
        let b = MemoryScope::new("agen", "t用户").unwrap();
        assert!(scope_key(&a, 7).starts_with(&scope_prefix(&a)));
        assert!(!scope_key(&b, 7).starts_with(&scope_prefix(&a)));
        assert_ne!(vector_key("ab", "c"), vector_key("a", "bc"));
    }

    #[test]
    fn values_round_trip_and_garbage_is_corrupt() {
        let bytes = encode(Table::Meta, &("记忆", 3)).unwrap();
        let back: (String, i32) = decode(Table::Meta, &bytes).unwrap();
        assert_eq!(back, ("记忆".to_owned(), 3));
        let bad: Result<(String, i32), _> = decode(Table::Meta, b"\xff");
        assert!(matches!(bad, Err(KvError::Corrupt { table: "meta", .. })));
    }
}
