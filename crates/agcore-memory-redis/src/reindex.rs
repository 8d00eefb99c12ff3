//! Re-indexing with the store analyzer: the prefix's `P:meta` hash records
//! the analyzer that built its postings (field `analyzer`; prefixes written
//! before it have none and were indexed with plain keywords). On open, when
//! it is not this library's [`ANALYZER_ID`], every item is re-tokenised with
//! [`index_terms`] in batches of [`BATCH`] (ids in order from `P:byid`), each
//! batch replacing postings, index entries and the total length in one
//! script call, then the analyzer is recorded. The script re-indexes an item
//! only while its stored content is the text tokenised, so a concurrent
//! write wins; re-indexing an item twice gives the same index, so
//! concurrent openers and a run cut short (re-done on the next open) are
//! safe.

use std::collections::BTreeMap;

use agcore_memory::retriever::{ANALYZER_ID, index_terms};
use redis::AsyncCommands;

use crate::error::Result;
use crate::store::RedisStore;

/// Items re-tokenised per script call.
pub(crate) const BATCH: isize = 500;

impl RedisStore {
    /// Re-indexes the prefix unless its recorded analyzer is [`ANALYZER_ID`].
    pub(crate) async fn sync_analyzer(&self) -> Result<()> {
        let mut conn = self.conn.clone();
        let meta = self.key("meta");
        let found: Option<String> = conn.hget(&meta, "analyzer").await?;
        if found.as_deref() == Some(ANALYZER_ID) {
            return Ok(());
        }
        let byid = self.key("byid");
        let mut start = "-".to_owned();
        loop {
            let ids: Vec<String> = redis::cmd("ZRANGEBYLEX")
                .arg(&byid)
                .arg(&start)
                .arg("+")
                .arg("LIMIT")
                .arg(0)
                .arg(BATCH)
                .query_async(&mut conn)
                .await?;
            let Some(last) = ids.last() else { break };
            start = format!("({last}");
            let items = self.fetch(&ids).await?;
            let mut payload = Vec::with_capacity(items.len());
            for item in items {
                let tokens = index_terms(&item.content);
                let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
                for token in &tokens {
                    *tf.entry(token.as_str()).or_insert(0) += 1;
                }
                payload.push(serde_json::json!({
                    "id": item.id,
                    "content": item.content,
                    "len": tokens.len(),
                    "tf": tf,
                }));
            }
            self.run("reindex", &[serde_json::to_string(&payload)?])
                .await?;
        }
        let () = conn.hset(&meta, "analyzer", ANALYZER_ID).await?;
        tracing::info!(prefix = %self.prefix, from = ?found, to = ANALYZER_ID, "redis: re-indexed");
        Ok(())
    }
}
