//! A conformance suite for stores with a context field
//! ([`ContextField`]: BM25F over each turn's neighbouring turns), feature
//! `testkit`.
//!
//! [`InMemoryStore`] is the reference: every check saves the same turns
//! into the store under test and into an `InMemoryStore` with the same
//! [`ContextField`] and [`EvictionConfig`], and expects the same hits in the
//! same order with the same scores (relative difference ≤ 1e-9; hits
//! whose scores are that close may come in either order, since two engines
//! sum the same terms in different orders: [`crate::ranking`]), besides a
//! few rankings written out by hand. The checks cover a reply found through
//! the question before it, memories without a sequence ranking as plain
//! BM25, `None` turning the field off, a wider window and another weight,
//! Chinese turns, the field following deletions, replacements, moves between
//! sequences and changed times, capacity eviction, and a seeded random run
//! of writes.
//!
//! # How a backend uses it
//! Give [`context_conformance_report`] a factory returning a **fresh,
//! empty** store with the given context field and eviction:
//!
//! ```
//! use std::sync::Arc;
//! use agcore_memory::retriever::ContextField;
//! use agcore_memory_testkit::context;
//! use agcore_memory::{EvictionConfig, InMemoryStore, MemoryStore};
//!
//! # tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(async {
//! let report = context::context_conformance_report(
//!     |field: Option<ContextField>, eviction: EvictionConfig| async move {
//!         Arc::new(InMemoryStore::with_eviction(eviction).with_context_field(field))
//!             as Arc<dyn MemoryStore>
//!     },
//! )
//! .await;
//! assert!(report.is_success(), "{report}");
//! # });
//! ```

mod checks;
mod random;

use std::future::Future;
use std::sync::Arc;

pub use checks::{
    check_chinese_turns, check_eviction, check_field_follows_writes, check_plain_items,
    check_reply_through_question, check_window_and_weight,
};
pub use random::check_random_writes;

use super::{CheckFailure, CheckResult, ConformanceReport, hit_ids};
use agcore_memory::retriever::ContextField;
use agcore_memory::{
    EvictionConfig, InMemoryStore, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};

/// The store under test and its reference, holding the same writes.
pub(crate) struct Pair {
    pub(crate) store: Arc<dyn MemoryStore>,
    pub(crate) reference: InMemoryStore,
}

impl Pair {
    /// A fresh store from `make` and a reference with the same settings.
    pub(crate) async fn new<F, Fut>(
        make: &F,
        field: Option<ContextField>,
        eviction: EvictionConfig,
    ) -> Self
    where
        F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
        Fut: Future<Output = Arc<dyn MemoryStore>>,
    {
        let reference =
            InMemoryStore::with_eviction(eviction.clone()).with_context_field(field.clone());
        Self {
            store: make(field, eviction).await,
            reference,
        }
    }

    pub(crate) async fn save_many(&self, items: Vec<MemoryItem>) -> CheckResult {
        self.store.save_many(items.clone()).await?;
        self.reference.save_many(items).await?;
        Ok(())
    }

    pub(crate) async fn save(&self, item: MemoryItem) -> CheckResult {
        self.store.save(item.clone()).await?;
        self.reference.save(item).await?;
        Ok(())
    }

    pub(crate) async fn delete(&self, id: &str) -> CheckResult {
        self.store.delete(id).await?;
        self.reference.delete(id).await?;
        Ok(())
    }

    /// Every hit of `query` in the store, checked against the reference.
    pub(crate) async fn search(&self, query: &str) -> Result<Vec<ScoredItem>, super::CheckFailure> {
        let options = SearchOptions::top_k(1000);
        let got = self.store.search(query, &options).await?;
        let want = self.reference.search(query, &options).await?;
        same_hits(&got, &want, query)?;
        Ok(got)
    }

    /// [`Self::search`] for each query.
    pub(crate) async fn ranks_alike(&self, queries: &[&str]) -> CheckResult {
        for query in queries {
            self.search(query).await?;
        }
        Ok(())
    }
}

/// The same hits in the same order with the same scores, as
/// [`same_ranking`](crate::ranking::same_ranking) compares them.
fn same_hits(got: &[ScoredItem], want: &[ScoredItem], query: &str) -> CheckResult {
    let pairs = |hits: &[ScoredItem]| -> Vec<(String, f64)> {
        hits.iter().map(|h| (h.item.id.clone(), h.score)).collect()
    };
    crate::ranking::same_ranking(&pairs(got), &pairs(want)).map_err(|why| {
        CheckFailure(format!(
            "query {query:?} against the reference InMemoryStore: {why}"
        ))
    })
}

/// Runs every check, each on fresh stores from `make`, and returns the report.
pub async fn context_conformance_report<F, Fut>(make: F) -> ConformanceReport
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let mut report = ConformanceReport::default();
    macro_rules! run {
        ($name:literal, $check:expr) => {
            match $check.await {
                Ok(()) => report.passed.push($name),
                Err(why) => report.failed.push(($name, why)),
            }
        };
    }
    run!(
        "context.reply_through_question",
        check_reply_through_question(&make)
    );
    run!("context.plain_items", check_plain_items(&make));
    run!("context.window_and_weight", check_window_and_weight(&make));
    run!("context.chinese_turns", check_chinese_turns(&make));
    run!(
        "context.field_follows_writes",
        check_field_follows_writes(&make)
    );
    run!("context.eviction", check_eviction(&make));
    run!("context.random_writes", check_random_writes(&make));
    report
}

/// Runs every check ([`context_conformance_report`]) and panics with the
/// report if any failed. Meant for `#[tokio::test]` functions.
///
/// # Panics
/// When a check fails; the message lists each failed check and why.
#[allow(clippy::panic)] // a test harness reports failure by panicking
pub async fn run_context_conformance<F, Fut>(make: F)
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let report = context_conformance_report(make).await;
    if !report.is_success() {
        panic!("{report}");
    }
}
