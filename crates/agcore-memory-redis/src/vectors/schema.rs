//! Keys of the vector store under the store's prefix `P`, and their setup:
//!
//! - `P:vectors_meta` (hash): the layout `version`, the embedding `model`
//!   and its `dimensions`.
//! - `P:vectors` (hash): field `{namespace}\0{id}` (namespaces hold no NUL,
//!   so fields never collide) → the vector's components as little-endian
//!   `f32`.
//! - `P:vector_hashes` (hash): the same fields → the content hash.
//!
//! Setup is one Lua script (atomic): on `reset` it deletes the three keys;
//! when no space is recorded it drops any rows and records `space`; it
//! returns the recorded layout, checked here.

use agcore_memory::vector::{EmbeddingSpace, check_space};
use redis::aio::ConnectionManager;

use crate::error::{Result, storage};

/// Layout version this library writes.
pub(crate) const VERSION: i64 = 1;

/// KEYS: meta, vectors, hashes. ARGV: reset (`1`/`0`), version, model,
/// dimensions. Returns the recorded version, model and dimensions.
const SETUP: &str = r"
if ARGV[1] == '1' then
  redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
end
if redis.call('HEXISTS', KEYS[1], 'version') == 0 then
  redis.call('DEL', KEYS[2], KEYS[3])
  redis.call('HSET', KEYS[1], 'version', ARGV[2], 'model', ARGV[3], 'dimensions', ARGV[4])
end
return redis.call('HMGET', KEYS[1], 'version', 'model', 'dimensions')
";

/// The names of the three keys under `prefix`: meta, vectors, hashes.
pub(crate) fn keys(prefix: &str) -> [String; 3] {
    [
        format!("{prefix}:vectors_meta"),
        format!("{prefix}:vectors"),
        format!("{prefix}:vector_hashes"),
    ]
}

/// Records `space` on first use (or after `reset`, which first deletes
/// every vector and the recorded space), else checks the layout version and
/// that `space` is the recorded one.
///
/// # Errors
/// [`agcore_memory::MemoryError::EmbeddingMismatch`] for another space; a
/// newer layout version; server errors.
pub(crate) async fn setup(
    conn: &mut ConnectionManager,
    prefix: &str,
    space: &EmbeddingSpace,
    reset: bool,
) -> Result<()> {
    let [meta, vectors, hashes] = keys(prefix);
    let recorded: (Option<String>, Option<String>, Option<String>) = redis::Script::new(SETUP)
        .key(meta)
        .key(vectors)
        .key(hashes)
        .arg(if reset { "1" } else { "0" })
        .arg(VERSION)
        .arg(&space.model)
        .arg(space.dimensions)
        .invoke_async(conn)
        .await?;
    let (version, model, dimensions) = recorded;
    let version: i64 = version
        .as_deref()
        .and_then(|v| v.parse().ok())
        .unwrap_or(i64::MAX);
    if version > VERSION {
        return Err(storage(format!(
            "redis vectors under `{prefix}`: layout version {version} is newer than this library ({VERSION})"
        )));
    }
    let stored = EmbeddingSpace::new(
        model.unwrap_or_default(),
        dimensions.and_then(|d| d.parse().ok()).unwrap_or(0),
    );
    check_space(&stored, space)?;
    Ok(())
}
