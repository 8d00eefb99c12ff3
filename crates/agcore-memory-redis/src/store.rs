//! [`RedisStore`]: the [`MemoryStore`] on Redis.

use std::collections::HashMap;
use std::sync::Arc;

use agcore_memory::retriever::{ContextField, MAX_STORED_WINDOW};
use agcore_memory::sql_store::Listing;
use agcore_memory::{
    EvictionConfig, EvictionPolicy, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem,
    SearchOptions, validate_id,
};
use async_trait::async_trait;
use redis::aio::ConnectionManager;

use crate::error::{RedisStoreError, Result};
use crate::items::{self, ITEM_FIELDS, ItemFields};

/// A [`MemoryStore`] in Redis under one key prefix (a namespace: several
/// stores share a database by prefix). Every write — the item hash, its
/// postings, the time and id indexes, the BM25 statistics, eviction — runs
/// in one Lua script, so it is atomic. A TTL policy sets a native expiry
/// (`PEXPIREAT`) on each item; the index entries of expired items are swept
/// by the next call. Search is BM25F over agcore's analyzer tokens and, for
/// the turns of a sequence, a context field of their neighbours' text
/// ([`RedisStoreBuilder::context_field`](crate::RedisStoreBuilder::context_field)),
/// ranked as the other backends rank. Needs a standalone Redis (the script addresses
/// keys it computes). Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct RedisStore {
    pub(crate) conn: ConnectionManager,
    pub(crate) prefix: Arc<str>,
    eviction: EvictionConfig,
    pub(crate) context: Option<Arc<ContextField>>,
    script: Arc<redis::Script>,
}

impl std::fmt::Debug for RedisStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("prefix", &self.prefix)
            .field("eviction", &self.eviction)
            .field("context", &self.context)
            .finish_non_exhaustive()
    }
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

impl RedisStore {
    pub(crate) fn new(
        conn: ConnectionManager,
        prefix: &str,
        eviction: EvictionConfig,
        context: Option<ContextField>,
    ) -> Self {
        Self {
            conn,
            prefix: prefix.into(),
            eviction,
            context: context.map(Arc::new),
            script: Arc::new(redis::Script::new(include_str!("script.lua"))),
        }
    }

    /// The key prefix.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        &self.eviction
    }

    /// The context field (BM25F over neighbouring turns), if any.
    pub fn context_field(&self) -> Option<&ContextField> {
        self.context.as_deref()
    }

    /// The context window the script derives fields with (0: none).
    fn window(&self) -> usize {
        ContextField::stored_window(self.context.as_deref(), MAX_STORED_WINDOW)
    }

    pub(crate) fn key(&self, name: &str) -> String {
        items::key(&self.prefix, name)
    }

    pub(crate) async fn run(&self, mode: &str, extra: &[String]) -> Result<i64> {
        let mut call = self.script.prepare_invoke();
        call.arg(&*self.prefix)
            .arg(mode)
            .arg(now_ms())
            .arg(self.window());
        for arg in extra {
            call.arg(arg);
        }
        let mut conn = self.conn.clone();
        Ok(call.invoke_async(&mut conn).await?)
    }

    /// Removes the index entries of items whose TTL has passed.
    pub(crate) async fn sweep(&self) -> Result<()> {
        if matches!(self.eviction.policy, EvictionPolicy::Ttl { .. }) {
            self.run("sweep", &[]).await?;
        }
        Ok(())
    }

    async fn write(&self, items: &[MemoryItem]) -> Result<()> {
        let max = match self.eviction.policy {
            EvictionPolicy::Capacity { max_items } => i64::try_from(max_items).unwrap_or(i64::MAX),
            _ => -1,
        };
        let payload = items::payload(items, &self.eviction.policy, self.context_field())?;
        let interval = self.eviction.check_interval.max(1).to_string();
        self.run("save", &[payload, interval, max.to_string()])
            .await?;
        Ok(())
    }

    /// The first `options.limit` items of `ranked` (ids with scores, best
    /// first) that still exist and pass the filter, read in batches.
    async fn hits(
        &self,
        ranked: &[(String, f64)],
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>> {
        let mut hits = Vec::with_capacity(options.limit.min(ranked.len()));
        let batch = options.limit.saturating_mul(2).max(32);
        for chunk in ranked.chunks(batch) {
            let ids: Vec<String> = chunk.iter().map(|(id, _)| id.clone()).collect();
            let by_id: HashMap<&str, f64> = chunk.iter().map(|(id, s)| (id.as_str(), *s)).collect();
            for item in self.fetch(&ids).await? {
                if hits.len() == options.limit {
                    return Ok(hits);
                }
                if options.filter.matches(&item) {
                    let score = by_id.get(item.id.as_str()).copied().unwrap_or(0.0);
                    hits.push(ScoredItem { item, score });
                }
            }
            if hits.len() == options.limit {
                break;
            }
        }
        Ok(hits)
    }

    /// The items with these ids that still exist, in order.
    pub(crate) async fn fetch(&self, ids: &[String]) -> Result<Vec<MemoryItem>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut pipe = redis::pipe();
        for id in ids {
            pipe.cmd("HMGET")
                .arg(self.key(&format!("item:{id}")))
                .arg(&ITEM_FIELDS[..]);
        }
        let mut conn = self.conn.clone();
        let rows: Vec<ItemFields> = pipe.query_async(&mut conn).await?;
        let mut out = Vec::with_capacity(rows.len());
        for (id, fields) in ids.iter().zip(rows) {
            if let Some(item) = items::item_from(id, fields)? {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// Items passing `filter` (its limit applied unless `unlimited`), in
    /// (created, id) order.
    async fn select(&self, filter: &MemoryFilter, unlimited: bool) -> Result<Vec<MemoryItem>> {
        self.sweep().await?;
        let mut conn = self.conn.clone();
        let ids: Vec<String> = if let Some(prefix) = &filter.prefix {
            let mut upper = prefix.clone().into_bytes();
            upper.push(0xff);
            let lower = [b"[".as_slice(), prefix.as_bytes()].concat();
            let upper = [b"(".as_slice(), &upper].concat();
            redis::cmd("ZRANGEBYLEX")
                .arg(self.key("byid"))
                .arg(lower)
                .arg(upper)
                .query_async(&mut conn)
                .await?
        } else {
            let lower = filter
                .since
                .map_or_else(|| "-".to_owned(), |t| format!("[{}", items::time_prefix(t)));
            let upper = filter
                .until
                .map_or_else(|| "+".to_owned(), |t| format!("({}", items::time_prefix(t)));
            let keys: Vec<Vec<u8>> = redis::cmd("ZRANGEBYLEX")
                .arg(self.key("created"))
                .arg(lower)
                .arg(upper)
                .query_async(&mut conn)
                .await?;
            keys.into_iter()
                .filter_map(|k| {
                    k.get(30..)
                        .map(|id| String::from_utf8_lossy(id).into_owned())
                })
                .collect()
        };
        let mut found = self.fetch(&ids).await?;
        found.sort_by(|a, b| {
            a.created_at
                .cmp(&b.created_at)
                .then_with(|| a.id.cmp(&b.id))
        });
        let listing = Listing {
            filter,
            exact: false,
            count_only: unlimited,
        };
        Ok(listing.finish(found).0)
    }
}

#[async_trait]
impl MemoryStore for RedisStore {
    async fn save(&self, item: MemoryItem) -> Result<(), MemoryError> {
        item.validate()?;
        Ok(self.write(&[item]).await?)
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        validate_id(id)?;
        Ok(self.fetch(&[id.to_owned()]).await?.pop())
    }

    /// One pipeline of `HMGET`s.
    async fn get_many(&self, ids: &[String]) -> Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            validate_id(id)?;
        }
        let found = self.fetch(ids).await?;
        Ok(agcore_memory::items_in_order(ids, found))
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        validate_id(id)?;
        self.run("delete", &[id.to_owned()]).await?;
        Ok(())
    }

    async fn list(&self, filter: &MemoryFilter) -> Result<Vec<MemoryItem>, MemoryError> {
        filter.validate()?;
        Ok(self.select(filter, false).await?)
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        if items.is_empty() {
            return Ok(());
        }
        Ok(self.write(&items).await?)
    }

    async fn count(&self, filter: &MemoryFilter) -> Result<usize, MemoryError> {
        filter.validate()?;
        if *filter == MemoryFilter::default() {
            self.sweep().await?;
            let mut conn = self.conn.clone();
            let n: usize = redis::cmd("ZCARD")
                .arg(self.key("created"))
                .query_async(&mut conn)
                .await
                .map_err(RedisStoreError::from)?;
            return Ok(n);
        }
        Ok(self.select(filter, true).await?.len())
    }

    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> Result<Vec<ScoredItem>, MemoryError> {
        agcore_memory::retriever::validate_search_options(options)?;
        self.sweep().await?;
        let index = crate::search::Index {
            conn: self.conn.clone(),
            prefix: &self.prefix,
            weight: self.context.as_ref().map_or(0.0, |c| c.weight),
        };
        let ranked = crate::search::rank(index, query, options).await?;
        Ok(self.hits(&ranked, options).await?)
    }
}
