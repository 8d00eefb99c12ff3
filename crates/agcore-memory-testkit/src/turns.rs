//! The context-field bench the database backends share: the bench corpus
//! ([`Corpus`]) as turns of sessions, saved and searched through any
//! [`MemoryStore`], so each backend measures its field the same way.

use std::future::Future;
use std::time::Instant;

use super::corpus::{Corpus, Percentiles, ms, percentiles};
use super::{at, turn};
use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};

/// Turns per session of [`as_turns`].
pub const TURNS_PER_SESSION: usize = 20;

/// Memories per `save_many` call of [`measure_turns`].
const BATCH: usize = 1_000;

/// `memories` as turns of sessions of [`TURNS_PER_SESSION`] consecutive
/// memories (metadata `session`), one second apart from [`at`]`(0)`.
pub fn as_turns(memories: &[MemoryItem]) -> Vec<MemoryItem> {
    memories
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.clone()
                .with_metadata(
                    serde_json::json!({ "session": (i / TURNS_PER_SESSION).to_string() }),
                )
                .with_created_at(at(i64::try_from(i).unwrap_or(i64::MAX)))
        })
        .collect()
}

/// The context bench's two data sets: the bench corpus's memories
/// (`AGCORE_BENCH_CONTEXT_N` of them, 10,000 when unset) saved plain, and
/// the same memories [`as_turns`].
pub fn context_sets() -> (Vec<MemoryItem>, Vec<MemoryItem>) {
    let n: usize = std::env::var("AGCORE_BENCH_CONTEXT_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let plain = Corpus::new().memories(n, 7);
    let turns = as_turns(&plain);
    (plain, turns)
}

/// What [`measure_turns`] measured on one store.
#[derive(Debug, Clone, Copy)]
pub struct TurnFigures {
    /// Memories saved per second in batches of 1,000.
    pub insert_per_s: f64,
    /// A single save of a turn appended to a session.
    pub save: Percentiles,
    /// A top-10 search.
    pub search: Percentiles,
}

impl TurnFigures {
    /// One report line: `n={n} {tag}: batched insert …/s, save p50 … ms, …`.
    pub fn line(&self, n: usize, tag: &str) -> String {
        format!(
            "n={n} {tag}: batched insert {:.0}/s, save p50 {:.3} ms, search p50 {:.3} ms p99 {:.3} ms",
            self.insert_per_s,
            ms(self.save.p50),
            ms(self.search.p50),
            ms(self.search.p99)
        )
    }
}

/// Saves `items` into the empty `store` in batches of 1,000 (the insert
/// rate), then 200 single turns appended to its sessions (the save
/// percentiles), runs `settle` (a backend's statistics refresh, such as
/// `VACUUM (ANALYZE)`), then 500 top-10 searches of the bench queries.
///
/// # Panics
/// When the store fails: a bench has no one to report an error to.
#[allow(clippy::unwrap_used, clippy::cast_precision_loss)]
pub async fn measure_turns<S, Fut>(
    store: &dyn MemoryStore,
    items: &[MemoryItem],
    settle: S,
) -> TurnFigures
where
    S: FnOnce() -> Fut,
    Fut: Future<Output = ()>,
{
    let started = Instant::now();
    for chunk in items.chunks(BATCH) {
        store.save_many(chunk.to_vec()).await.unwrap();
    }
    let insert_per_s = items.len() as f64 / started.elapsed().as_secs_f64();
    let queries = Corpus::new().queries(500, 11);
    let sessions = items.len().div_ceil(TURNS_PER_SESSION).max(1);
    let mut n = 0usize;
    let save = percentiles(queries.get(..200).unwrap_or(&queries), |q| {
        n += 1;
        let seq = i64::try_from(items.len() + n).unwrap_or(i64::MAX);
        let item = turn(&format!("single:{n}"), &(n % sessions).to_string(), seq, &q);
        async move { store.save(item).await.unwrap() }
    })
    .await;
    settle().await;
    let options = SearchOptions::top_k(10);
    let search = percentiles(&queries, |q| {
        let options = &options;
        async move {
            store.search(&q, options).await.unwrap();
        }
    })
    .await;
    TurnFigures {
        insert_per_s,
        save,
        search,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agcore_memory::InMemoryStore;

    #[test]
    fn turns_fill_sessions_in_time_order() {
        let memories: Vec<MemoryItem> = (0..45)
            .map(|i| MemoryItem::new(format!("m{i}"), "x"))
            .collect();
        let turns = as_turns(&memories);
        assert_eq!(turns[19].metadata["session"], "0");
        assert_eq!(turns[20].metadata["session"], "1");
        assert_eq!(turns[44].metadata["session"], "2");
        assert!(turns.windows(2).all(|w| w[0].created_at < w[1].created_at));
    }

    #[tokio::test]
    async fn the_bench_runs_on_any_store() {
        let store = InMemoryStore::new();
        let items = as_turns(&Corpus::new().memories(60, 7));
        let mut settled = false;
        let figures = measure_turns(&store, &items, || {
            settled = true;
            async {}
        })
        .await;
        assert!(settled);
        assert!(figures.insert_per_s > 0.0);
        assert_eq!(store.count(&Default::default()).await.unwrap(), 260);
        assert!(figures.line(60, "t").starts_with("n=60 t: batched insert"));
    }
}
