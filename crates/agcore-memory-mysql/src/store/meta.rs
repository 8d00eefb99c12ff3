//! The store's meta rows (`agcore_store_meta`): what the context fields
//! were derived with and what the document frequencies were counted for,
//! read and forgotten here, apart from the code that derives them.

use agcore_memory::retriever::ContextField;
use mysql_async::Conn;
use mysql_async::prelude::Queryable;
use sha2::{Digest, Sha256};

use crate::error::Result;

/// The meta row recording the settings the fields were derived with.
pub(crate) const CONTEXT_KEY: &str = "context_field";

/// The meta row recording what the document frequencies were counted for.
pub(crate) const DF_KEY: &str = "df";

/// Longest value of an `agcore_store_meta` row.
const MAX_META: usize = 255;

/// The recorded form of `context`'s derivation settings (key and window;
/// its SHA-256 when longer than a meta row holds).
pub(crate) fn settings(context: Option<&ContextField>) -> String {
    recorded(agcore_memory::retriever::derivation_settings(context))
}

/// `text` as a meta row records it: itself, or its SHA-256 when longer
/// than a row holds.
pub(crate) fn recorded(text: String) -> String {
    if text.len() <= MAX_META {
        return text;
    }
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// Forgets what the context fields were derived with and what the
/// document frequencies were counted for (their meta rows), so the next
/// open derives and counts them again: the words they are made of were
/// re-indexed.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn mark_stale(conn: &mut Conn) -> Result<()> {
    conn.exec_drop(
        "DELETE FROM agcore_store_meta WHERE name IN (?, ?)",
        (CONTEXT_KEY, DF_KEY),
    )
    .await?;
    Ok(())
}

/// The value of the `agcore_store_meta` row `name`, if any.
///
/// # Errors
/// [`crate::MysqlError`] from the server.
pub(crate) async fn meta(conn: &mut Conn, name: &str) -> Result<Option<String>> {
    Ok(conn
        .exec_first(
            "SELECT value FROM agcore_store_meta WHERE name = ?",
            (name,),
        )
        .await?)
}
