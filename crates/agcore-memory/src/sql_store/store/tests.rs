//! [`SqlStore`] over a driver that records its calls.

use std::sync::Mutex;

use async_trait::async_trait;

use super::{SqlStore, StoreDriver};
use crate::retriever::ContextField;
use crate::retry::WRITE_ATTEMPTS;
use crate::{
    EvictionConfig, EvictionPolicy, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem,
    SearchOptions,
};

/// Records each call; upserts fail with a conflict `conflicts` times.
#[derive(Default)]
struct Recorder<const IN_WRITE: bool> {
    calls: Mutex<Vec<String>>,
    conflicts: Mutex<usize>,
}

impl<const IN_WRITE: bool> Recorder<IN_WRITE> {
    fn log(&self, call: impl Into<String>) {
        self.calls.lock().unwrap().push(call.into());
    }
}

fn conflict() -> MemoryError {
    MemoryError::Storage("conflict".into())
}

#[async_trait]
impl<const IN_WRITE: bool> StoreDriver for Recorder<IN_WRITE> {
    type Error = MemoryError;
    type Batch = Vec<MemoryItem>;
    const NAME: &'static str = "Recorder";
    const EVICTS_IN_WRITE: bool = IN_WRITE;

    fn context(&self) -> Option<&ContextField> {
        None
    }

    fn is_lock_conflict(&self, err: &MemoryError) -> bool {
        err.to_string() == conflict().to_string()
    }

    fn prepare(&self, items: Vec<MemoryItem>) -> Result<Vec<MemoryItem>, MemoryError> {
        self.log(format!("prepare {}", items.len()));
        Ok(items)
    }

    async fn upsert(
        &self,
        batch: &Vec<MemoryItem>,
        evict: Option<&EvictionPolicy>,
    ) -> Result<(), MemoryError> {
        self.log(format!("upsert {} evict={}", batch.len(), evict.is_some()));
        let mut left = self.conflicts.lock().unwrap();
        if *left > 0 {
            *left -= 1;
            return Err(conflict());
        }
        Ok(())
    }

    fn after_write(&self, rows: usize) {
        self.log(format!("after {rows}"));
    }

    async fn evict(&self, _: &EvictionPolicy) -> Result<(), MemoryError> {
        self.log("evict");
        Ok(())
    }

    async fn delete(&self, id: &str) -> Result<(), MemoryError> {
        self.log(format!("delete {id}"));
        Err(conflict())
    }

    async fn select(
        &self,
        filter: &MemoryFilter,
        count_only: bool,
    ) -> Result<(Vec<MemoryItem>, usize), MemoryError> {
        self.log(format!("select {:?} {count_only}", filter.limit));
        Ok((vec![MemoryItem::new("a", "x")], 7))
    }

    async fn get(&self, id: &str) -> Result<Option<MemoryItem>, MemoryError> {
        Ok(Some(MemoryItem::new(id, "x")))
    }

    async fn get_many(&self, ids: &[String]) -> Result<Vec<MemoryItem>, MemoryError> {
        Ok(ids
            .iter()
            .rev()
            .map(|id| MemoryItem::new(id, "x"))
            .collect())
    }

    async fn search(&self, _: &str, _: &SearchOptions) -> Result<Vec<ScoredItem>, MemoryError> {
        Ok(Vec::new())
    }
}

fn calls<const W: bool>(store: &SqlStore<Recorder<W>>) -> Vec<String> {
    std::mem::take(&mut *store.driver().calls.lock().unwrap())
}

fn items(n: usize) -> Vec<MemoryItem> {
    (0..n)
        .map(|i| MemoryItem::new(format!("i{i}"), "x"))
        .collect()
}

#[tokio::test]
async fn eviction_runs_in_the_write_or_after_it_as_the_driver_says() {
    let store = SqlStore::new(Recorder::<true>::default(), EvictionConfig::capacity(5, 2));
    store.save_many(items(1)).await.unwrap();
    store.save_many(items(1)).await.unwrap();
    let expected = [
        "prepare 1",
        "upsert 1 evict=false",
        "after 1",
        "prepare 1",
        "upsert 1 evict=true",
        "after 1",
    ];
    assert_eq!(calls(&store), expected);
    let store = SqlStore::new(Recorder::<false>::default(), EvictionConfig::capacity(5, 2));
    store.save_many(items(3)).await.unwrap();
    let expected = ["prepare 3", "upsert 3 evict=false", "after 3", "evict"];
    assert_eq!(calls(&store), expected);
    assert!(format!("{store:?}").starts_with("Recorder"));
}

#[tokio::test]
async fn conflicts_run_a_write_again_on_one_prepared_batch() {
    let store = SqlStore::new(Recorder::<true>::default(), EvictionConfig::none());
    *store.driver().conflicts.lock().unwrap() = 2;
    store.save(MemoryItem::new("a", "x")).await.unwrap();
    let expected = ["prepare 1", "upsert 1 evict=false", "upsert 1 evict=false"];
    assert_eq!(calls(&store)[..3], expected);
    assert_eq!(calls(&store).len(), 0);
    assert!(store.delete("a").await.is_err());
    assert_eq!(calls(&store).len(), WRITE_ATTEMPTS);
}

#[tokio::test]
async fn input_is_checked_before_the_driver_and_empty_calls_skip_it() {
    let store = SqlStore::new(Recorder::<true>::default(), EvictionConfig::none());
    store.save_many(Vec::new()).await.unwrap();
    assert!(store.get_many(&[]).await.unwrap().is_empty());
    let bad = MemoryItem::new("", "x");
    assert!(matches!(
        store.save(bad).await,
        Err(MemoryError::InvalidInput(_))
    ));
    assert!(matches!(
        store.delete("").await,
        Err(MemoryError::InvalidInput(_))
    ));
    assert!(calls(&store).is_empty());
    let ids = ["b".to_owned(), "a".to_owned(), "b".to_owned()];
    let found = store.get_many(&ids).await.unwrap();
    let found: Vec<_> = found
        .iter()
        .map(|i| i.as_ref().map(|i| i.id.as_str()))
        .collect();
    assert_eq!(found, [Some("b"), Some("a"), Some("b")]);
    let filter = MemoryFilter {
        limit: Some(3),
        ..MemoryFilter::default()
    };
    assert_eq!(store.count(&filter).await.unwrap(), 7);
    assert_eq!(store.list(&filter).await.unwrap().len(), 1);
    assert_eq!(calls(&store), ["select None true", "select Some(3) false"]);
}
