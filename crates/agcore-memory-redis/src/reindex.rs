//! Re-indexing: the prefix's `P:meta` hash records the analyzer that built
//! its postings (field `analyzer`; prefixes written before it have none and
//! were indexed with plain keywords) and the context field's derivation
//! settings (field `context_field`: sequence key and window as JSON, `null`
//! for none, as `retriever::derivation_settings` writes them; prefixes
//! written before the context field have none).
//!
//! On open, when either differs from this store's ([`ANALYZER_ID`] and its
//! `ContextField`), the index is rebuilt in two passes over the ids in
//! order from `P:byid`, [`BATCH`] items per script call:
//! 1. `rebuild`: every item re-tokenised with `retriever::index_terms`, its own
//!    postings, sequence membership and the statistics replaced (the script
//!    does so only while the stored content is the text tokenised, so a
//!    concurrent write wins);
//! 2. `refresh`: every item's context field derived from its neighbours.
//!
//! Then both settings are recorded. Rebuilding twice gives the same index,
//! so concurrent openers and a run cut short (re-done on the next open) are
//! safe. The weight of the field only matters at search time.

use agcore_memory::retriever::derivation_settings;
use agcore_search::ANALYZER_ID;
use redis::AsyncCommands;

use crate::error::Result;
use crate::items;
use crate::store::RedisStore;

/// Items re-indexed per script call.
pub(crate) const BATCH: isize = 500;

impl RedisStore {
    /// Rebuilds the prefix's index unless it was built with [`ANALYZER_ID`]
    /// and this store's context field settings.
    pub(crate) async fn sync_index(&self) -> Result<()> {
        let mut conn = self.conn.clone();
        let meta = self.key("meta");
        let (analyzer, context): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(&meta)
            .arg("analyzer")
            .arg("context_field")
            .query_async(&mut conn)
            .await?;
        let wanted = derivation_settings(self.context_field());
        if analyzer.as_deref() == Some(ANALYZER_ID) && context.as_deref() == Some(wanted.as_str()) {
            return Ok(());
        }
        self.each_batch(|store, ids| async move {
            let mut payload = Vec::with_capacity(ids.len());
            for item in store.fetch(&ids).await? {
                let mut object = serde_json::Map::new();
                object.insert("id".into(), item.id.clone().into());
                object.insert("content".into(), item.content.clone().into());
                items::index_fields(&mut object, &item, store.context_field());
                payload.push(serde_json::Value::Object(object));
            }
            store
                .run("rebuild", &[serde_json::to_string(&payload)?])
                .await?;
            Ok(())
        })
        .await?;
        if self.context.is_some() {
            self.each_batch(|store, ids| async move {
                store
                    .run("refresh", &[serde_json::to_string(&ids)?])
                    .await?;
                Ok(())
            })
            .await?;
        }
        let () = conn
            .hset_multiple(
                &meta,
                &[
                    ("analyzer", ANALYZER_ID),
                    ("context_field", wanted.as_str()),
                ],
            )
            .await?;
        tracing::info!(
            prefix = %self.prefix,
            from.analyzer = ?analyzer,
            from.context_field = ?context,
            to.analyzer = ANALYZER_ID,
            to.context_field = %wanted,
            "redis: re-indexed"
        );
        Ok(())
    }

    /// Runs `step` on every id of the prefix, [`BATCH`] at a time, in order.
    async fn each_batch<F, Fut>(&self, step: F) -> Result<()>
    where
        F: Fn(Self, Vec<String>) -> Fut,
        Fut: std::future::Future<Output = Result<()>>,
    {
        let mut conn = self.conn.clone();
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
            let Some(last) = ids.last() else {
                return Ok(());
            };
            start = format!("({last}");
            step(self.clone(), ids).await?;
        }
    }
}
