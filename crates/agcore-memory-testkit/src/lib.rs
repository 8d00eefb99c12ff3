//! The conformance suites of agcore's memory backends: [`MemoryStore`]
//! ([`run_conformance`]), long-term memory ([`long_term`]), vector stores
//! ([`vectors`]) and context fields ([`context`]).
//!
//! Any backend — the built-in ones or yours — runs the same checks unchanged:
//! CRUD, upsert, filters (prefix, since/until, metadata, limit, order),
//! invalid filters and ids, prefix isolation, TTL and capacity eviction,
//! search ranking in English and Chinese, search through English
//! inflections (stemming), hostile text (full-text query
//! syntax, SQL meta-characters, emoji, mixed scripts, multi-megabyte
//! content, text of stop words only), `save_many`, `count` and concurrent writers.
//! Stores with a context field (BM25F over neighbouring turns) also run
//! [`context::run_context_conformance`], and vector stores
//! [`vectors::vector_conformance_report`].
//!
//! # How a backend uses it
//! Add the crate to the backend's dev-dependencies
//! (`agcore-memory-testkit = "0.1"`), then give
//! [`run_conformance`] a factory that returns a **fresh, empty** store applying
//! the given [`EvictionConfig`]:
//!
//! ```
//! use std::sync::Arc;
//! use agcore_memory::{EvictionConfig, InMemoryStore, MemoryStore};
//!
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! # block_on(async {
//! agcore_memory_testkit::run_conformance(|eviction: EvictionConfig| async move {
//!     Arc::new(InMemoryStore::with_eviction(eviction)) as Arc<dyn MemoryStore>
//! })
//! .await;
//! # });
//! ```
//!
//! Run it from a multi-threaded tokio runtime
//! (`#[tokio::test(flavor = "multi_thread")]`). Each check is also public
//! (`check_*`), taking a fresh store (or the factory, for eviction), so a
//! backend can run one in isolation; [`conformance_report`] returns the
//! results instead of panicking.
//!
//! The server drivers share the checks that need a real server — several
//! processes writing at once, an outage, ranking like SQLite — and private
//! servers to break, in [`drivers`]. The exhaustive references a backend's
//! pruned search is checked against, computed from the rows it lists, are
//! in [`reference`](mod@reference).

mod basics;
pub mod context;
pub mod corpus;
pub mod drivers;
mod eviction;
mod filters;
mod hostile;
mod layered;
pub mod long_term;
pub mod ranking;
pub mod reference;
mod search;
mod services;
mod stemming;
pub mod turns;
pub mod vectors;

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use chrono::{DateTime, TimeZone, Utc};

pub use basics::{
    check_concurrent_writers, check_count, check_crud, check_get_many, check_invalid_ids,
    check_save_many, check_upsert,
};
pub use eviction::{check_capacity_eviction, check_check_interval, check_ttl_eviction};
pub use filters::{
    check_invalid_filters, check_list_order_and_limit, check_metadata_filter,
    check_prefix_isolation, check_time_filters,
};
pub use hostile::{
    check_emoji_and_mixed_scripts, check_large_content, check_query_syntax_is_literal,
    check_text_without_terms,
};
pub use layered::check_wiki_and_conversation;
pub use long_term::run_long_term_conformance;
pub use search::{check_search_chinese, check_search_english, check_search_options};
pub use services::{libtest_name, service_url, services_required};
pub use stemming::check_search_stemmed;

use agcore_memory::{EvictionConfig, MemoryError, MemoryStore};

/// Why a check failed: a message naming the expectation and what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckFailure(pub String);

impl fmt::Display for CheckFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<MemoryError> for CheckFailure {
    fn from(err: MemoryError) -> Self {
        Self(format!("unexpected error: {err}"))
    }
}

/// The outcome of one check.
pub type CheckResult = Result<(), CheckFailure>;

/// Results of [`conformance_report`]: check names passed and failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConformanceReport {
    /// Names of the checks that passed.
    pub passed: Vec<&'static str>,
    /// Names of the checks that failed, with why.
    pub failed: Vec<(&'static str, CheckFailure)>,
}

impl ConformanceReport {
    /// Whether every check passed.
    pub fn is_success(&self) -> bool {
        self.failed.is_empty()
    }
}

impl fmt::Display for ConformanceReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "memory store conformance: {} passed, {} failed",
            self.passed.len(),
            self.failed.len()
        )?;
        for (name, why) in &self.failed {
            writeln!(f, "  FAILED {name}: {why}")?;
        }
        Ok(())
    }
}

/// Runs every check, each on a fresh store from `make`, and returns the report.
pub async fn conformance_report<F, Fut>(make: F) -> ConformanceReport
where
    F: Fn(EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let mut report = ConformanceReport::default();
    let none = EvictionConfig::none;
    macro_rules! run {
        ($name:literal, $check:expr) => {
            match $check.await {
                Ok(()) => report.passed.push($name),
                Err(why) => report.failed.push(($name, why)),
            }
        };
    }
    run!("crud", check_crud(make(none()).await));
    run!("upsert", check_upsert(make(none()).await));
    run!("save_many", check_save_many(make(none()).await));
    run!("count", check_count(make(none()).await));
    run!("invalid_ids", check_invalid_ids(make(none()).await));
    run!("get_many", check_get_many(make(none()).await));
    run!(
        "concurrent_writers",
        check_concurrent_writers(make(none()).await)
    );
    run!(
        "list_order_and_limit",
        check_list_order_and_limit(make(none()).await)
    );
    run!(
        "prefix_isolation",
        check_prefix_isolation(make(none()).await)
    );
    run!("time_filters", check_time_filters(make(none()).await));
    run!("metadata_filter", check_metadata_filter(make(none()).await));
    run!("invalid_filters", check_invalid_filters(make(none()).await));
    run!("search_english", check_search_english(make(none()).await));
    run!("search_chinese", check_search_chinese(make(none()).await));
    run!("search_options", check_search_options(make(none()).await));
    run!("search_stemmed", check_search_stemmed(make(none()).await));
    run!(
        "query_syntax_is_literal",
        check_query_syntax_is_literal(make(none()).await)
    );
    run!(
        "emoji_and_mixed_scripts",
        check_emoji_and_mixed_scripts(make(none()).await)
    );
    run!("large_content", check_large_content(make(none()).await));
    run!(
        "text_without_terms",
        check_text_without_terms(make(none()).await)
    );
    run!("ttl_eviction", check_ttl_eviction(&make));
    run!("capacity_eviction", check_capacity_eviction(&make));
    run!("check_interval", check_check_interval(&make));
    report
}

/// Runs every check ([`conformance_report`]) and panics with the report if
/// any failed. Meant for `#[tokio::test]` functions.
///
/// # Panics
/// When a check fails; the message lists each failed check and why.
#[allow(clippy::panic)] // a test harness reports failure by panicking
pub async fn run_conformance<F, Fut>(make: F)
where
    F: Fn(EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let report = conformance_report(make).await;
    if !report.is_success() {
        panic!("{report}");
    }
}

/// Fails with `message` unless `condition` holds.
///
/// # Errors
/// [`CheckFailure`] with `message`.
pub fn ensure(condition: bool, message: impl FnOnce() -> String) -> CheckResult {
    if condition {
        Ok(())
    } else {
        Err(CheckFailure(message()))
    }
}

/// A fixed base time (2024-01-01T00:00:00Z) plus `secs` seconds, for
/// reproducible `created_at` values.
pub fn at(secs: i64) -> DateTime<Utc> {
    let base = Utc
        .with_ymd_and_hms(2024, 1, 1, 0, 0, 0)
        .single()
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH);
    base + chrono::Duration::seconds(secs)
}

/// A turn of a conversation: item `id` with `text`, in sequence `session`
/// (metadata `{"session": session}`, the default
/// [`ContextField`](agcore_memory::retriever::ContextField) key), created `seq`
/// seconds after [`at`]'s base time. For the context-field tests of the
/// stores.
pub fn turn(id: &str, session: &str, seq: i64, text: &str) -> agcore_memory::MemoryItem {
    agcore_memory::MemoryItem::new(id, text)
        .with_metadata(serde_json::json!({ "session": session }))
        .with_created_at(at(seq))
}

fn ids(items: &[agcore_memory::MemoryItem]) -> Vec<&str> {
    items.iter().map(|i| i.id.as_str()).collect()
}

fn hit_ids(hits: &[agcore_memory::ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

fn expect_invalid<T: fmt::Debug>(what: &str, result: Result<T, MemoryError>) -> CheckResult {
    match result {
        Err(MemoryError::InvalidInput(_)) => Ok(()),
        other => Err(CheckFailure(format!(
            "{what}: expected InvalidInput, got {other:?}"
        ))),
    }
}
