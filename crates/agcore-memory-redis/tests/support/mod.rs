//! Test stores: each under a fresh key prefix of the server named by
//! `AGCORE_TEST_REDIS_URL`; and [`Redis`], this driver's [`ServerHarness`]
//! for the shared checks (private servers for fault tests included).
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryStore};
use agcore_memory_redis::RedisStore;
use agcore_memory_testkit::drivers::{Opened, ServerHarness, instance_name, instance_prefix};
use agcore_memory_testkit::service_url;

/// The server URL, or `None` (with a printed reason) outside CI.
pub fn url() -> Option<String> {
    service_url("AGCORE_TEST_REDIS_URL")
}

/// A store under a prefix unique to this process and call.
pub async fn fresh(url: &str, tag: &str, eviction: EvictionConfig) -> RedisStore {
    fresh_with(url, tag, eviction, Some(ContextField::default())).await
}

/// [`fresh`] with the given context field.
pub async fn fresh_with(
    url: &str,
    tag: &str,
    eviction: EvictionConfig,
    field: Option<ContextField>,
) -> RedisStore {
    RedisStore::builder()
        .prefix(instance_name(":", tag))
        .eviction(eviction)
        .context_field(field)
        .open(url)
        .await
        .unwrap()
}

/// Deletes every key of this process's test prefixes for `tag`.
pub fn drop_keys(url: &str, tag: &str) {
    drop_with_prefix(url, &instance_prefix(":", tag));
}

/// Deletes every key starting with `prefix`.
fn drop_with_prefix(url: &str, prefix: &str) {
    let client = redis::Client::open(url).unwrap();
    let mut conn = client.get_connection().unwrap();
    let keys: Vec<String> = redis::cmd("KEYS")
        .arg(format!("{prefix}*"))
        .query(&mut conn)
        .unwrap();
    for chunk in keys.chunks(500) {
        let _: () = redis::cmd("DEL").arg(chunk).query(&mut conn).unwrap();
    }
}

/// Redis for the shared checks of [`agcore_memory_testkit::drivers`]: an
/// instance is a key prefix; no long-term memory.
pub struct Redis;

impl ServerHarness for Redis {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn url_var(&self) -> &'static str {
        "AGCORE_TEST_REDIS_URL"
    }

    fn server_kind(&self) -> &'static str {
        "redis"
    }

    fn separator(&self) -> &'static str {
        ":"
    }

    async fn open(&self, url: &str, name: &str, _pool_size: usize) -> Opened {
        let store = RedisStore::builder().prefix(name).open(url).await.unwrap();
        Opened {
            store: Arc::new(store),
            long_term: None,
        }
    }

    async fn open_with_timeouts(&self, url: &str) -> Arc<dyn MemoryStore> {
        let store = RedisStore::builder()
            .timeout(Duration::from_secs(2))
            .open(url)
            .await
            .unwrap();
        Arc::new(store)
    }

    async fn drop_instances(&self, url: &str, prefix: &str) {
        drop_with_prefix(url, prefix);
    }
}
