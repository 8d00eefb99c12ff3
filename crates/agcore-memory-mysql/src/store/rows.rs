//! Items to and from rows: time as seconds + nanoseconds, content as bytes,
//! metadata as exact JSON text.

use agcore_memory::MemoryItem;
use mysql_async::Row;

use crate::error::{Result, storage};
use crate::row::{join_time, take, text};

/// The columns every item query selects, in [`item_from_row`]'s order.
pub(crate) const ITEM_COLUMNS: &str = "i.id, i.content, i.metadata, i.created_s, i.created_ns";

/// The item of a row selected with [`ITEM_COLUMNS`] first.
///
/// # Errors
/// A storage error for content that is not UTF-8, metadata that is not JSON
/// or a time out of range (a row not written by this library).
pub(crate) fn item_from_row(row: &mut Row) -> Result<MemoryItem> {
    let id = text(row, 0)?;
    let content =
        text(row, 1).map_err(|_| storage(format!("mysql: content of `{id}` is not UTF-8")))?;
    let metadata: String = take(row, 2)?;
    let metadata = serde_json::from_str(&metadata)?;
    let created_at = join_time(take(row, 3)?, take(row, 4)?)?;
    Ok(MemoryItem {
        id,
        content,
        metadata,
        created_at,
    })
}
