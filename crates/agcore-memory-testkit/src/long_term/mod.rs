//! A conformance suite for [`LongTermBackend`](agcore_memory::long_term::LongTermBackend)s
//! (feature `testkit`): every backend — the built-in ones or yours — runs
//! the same checks through [`LongTermMemory`], each on a fresh, empty memory,
//! and only what the trait's contract promises is asserted.
//!
//! Checks ([`LONG_TERM_CHECKS`], one public `check_*` function each):
//! - writes: save / get / update / delete round trips, weights clamped
//!   ([`check_save_get_update_delete`]); history of supersede, update and
//!   delete ([`check_history`]);
//! - duplicates: the same text merges within a scope
//!   ([`check_duplicates_merge`]) and is a separate entry in another scope
//!   ([`check_duplicates_per_scope`]);
//! - the four memory types and the filters, orders and limits of `list` and
//!   `search` ([`check_types_and_filters`]);
//! - BM25 search in English and Chinese ([`check_search_english`],
//!   [`check_search_chinese`]), indexed fields, ties, re-indexing
//!   ([`check_search_fields_and_ties`]), English inflections and Chinese
//!   through the stemming analyzer ([`check_search_stemmed`]); hostile query
//!   and content text is
//!   literal ([`check_hostile_text`]);
//! - scope isolation, search statistics included ([`check_scope_isolation`]),
//!   an adversarial campaign of [`ISOLATION_ATTEMPTS`] generated attempts by
//!   scopes with hostile ids on each other's entries
//!   ([`check_isolation_campaign`]), and `scopes()` ([`check_scopes`]);
//! - weights: use and the usage log ([`check_use_and_usage_log`]),
//!   `archive_below` ([`check_archive_below`]), age decay
//!   ([`check_maintenance`]), the dedupe of near duplicates
//!   ([`check_maintenance_dedupe`]);
//! - the dialogue buffer ([`check_dialogue_buffer`]);
//! - backup import ([`check_import`]), all or nothing
//!   ([`check_import_all_or_nothing`]);
//! - concurrent saves and uses ([`check_concurrent_saves`], first saves
//!   into new scopes at once ([`check_concurrent_new_scopes`]),
//!   [`check_concurrent_use`]); `close` ([`check_close`]).
//!
//! # Running it against your backend
//! Add `agcore-memory = { version = "0.1", features = ["testkit"] }` and
//! `tokio` (features `macros`, `rt-multi-thread`) to the backend crate's
//! dev-dependencies, and a test such as `tests/long_term_conformance.rs`
//! whose factory returns a **fresh, empty** memory on each call (a new
//! database, schema or key prefix — checks must not see each other's data):
//!
//! ```
//! use std::sync::Arc;
//! use agcore_memory::long_term::{InMemoryLongTerm, LongTermBackend, LongTermMemory};
//! use agcore_memory_testkit::long_term::run_long_term_conformance;
//!
//! // In your crate: `#[tokio::test(flavor = "multi_thread", worker_threads = 2)]`.
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! # block_on(async {
//! run_long_term_conformance(|| async {
//!     // Replace with your backend, opened on an empty database, e.g.
//!     // `MyLongTerm::connect(&fresh_database_url().await).await.unwrap()`.
//!     let backend: Arc<dyn LongTermBackend> = Arc::new(InMemoryLongTerm::new());
//!     LongTermMemory::from_arc(backend)
//! })
//! .await;
//! # });
//! ```
//!
//! [`run_long_term_conformance`] panics with every failed check and why;
//! [`long_term_report`] returns a [`ConformanceReport`] instead (its
//! `passed` equals [`LONG_TERM_CHECKS`] on success). A single check runs as
//! `check_history(make().await).await`, returning a [`CheckResult`](super::CheckResult).
//!
//! Not covered (the contract cannot be driven from outside): a storage
//! failure in the middle of an import rolling back; the import checks refuse
//! invalid batches before the backend is called.

mod buffer;
mod campaign;
mod concurrency;
mod dedup;
mod filters;
mod hostile;
mod import;
mod lifecycle;
mod scope;
mod search;
mod stemming;
mod upkeep;
mod weights;
mod write;

use std::future::Future;

pub use buffer::check_dialogue_buffer;
pub use campaign::{
    ISOLATION_ATTEMPTS, IsolationReport, check_isolation_campaign, isolation_campaign,
};
pub use concurrency::{check_concurrent_new_scopes, check_concurrent_saves, check_concurrent_use};
pub use dedup::{check_duplicates_merge, check_duplicates_per_scope};
pub use filters::check_types_and_filters;
pub use hostile::check_hostile_text;
pub use import::{check_import, check_import_all_or_nothing};
pub use lifecycle::check_close;
pub use scope::{check_scope_isolation, check_scopes};
pub use search::{check_search_chinese, check_search_english, check_search_fields_and_ties};
pub use stemming::check_search_stemmed;
pub use upkeep::check_maintenance_dedupe;
pub use weights::{check_archive_below, check_maintenance, check_use_and_usage_log};
pub use write::{check_get_many, check_history, check_save_get_update_delete};

use super::ConformanceReport;
use agcore_memory::long_term::{ArchivedFilter, ListRequest, LongTermMemory};

/// The names of the checks [`long_term_report`] runs, in order.
pub const LONG_TERM_CHECKS: &[&str] = &[
    "save_get_update_delete",
    "get_many",
    "history",
    "duplicates_merge",
    "duplicates_per_scope",
    "types_and_filters",
    "search_english",
    "search_chinese",
    "search_fields_and_ties",
    "search_stemmed",
    "hostile_text",
    "scope_isolation",
    "isolation_campaign",
    "scopes",
    "use_and_usage_log",
    "archive_below",
    "maintenance",
    "maintenance_dedupe",
    "dialogue_buffer",
    "import",
    "import_all_or_nothing",
    "concurrent_saves",
    "concurrent_new_scopes",
    "concurrent_use",
    "close",
];

/// Every entry, archived ones included.
fn including_archived() -> ListRequest {
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    request
}

/// Runs every check ([`LONG_TERM_CHECKS`]), each on a fresh memory from
/// `make`, and returns the report.
pub async fn long_term_report<F, Fut>(make: F) -> ConformanceReport
where
    F: Fn() -> Fut,
    Fut: Future<Output = LongTermMemory>,
{
    let mut report = ConformanceReport::default();
    macro_rules! run {
        ($name:literal, $check:ident) => {
            match $check(make().await).await {
                Ok(()) => report.passed.push($name),
                Err(why) => report.failed.push(($name, why)),
            }
        };
    }
    run!("save_get_update_delete", check_save_get_update_delete);
    run!("get_many", check_get_many);
    run!("history", check_history);
    run!("duplicates_merge", check_duplicates_merge);
    run!("duplicates_per_scope", check_duplicates_per_scope);
    run!("types_and_filters", check_types_and_filters);
    run!("search_english", check_search_english);
    run!("search_chinese", check_search_chinese);
    run!("search_fields_and_ties", check_search_fields_and_ties);
    run!("search_stemmed", check_search_stemmed);
    run!("hostile_text", check_hostile_text);
    run!("scope_isolation", check_scope_isolation);
    run!("isolation_campaign", check_isolation_campaign);
    run!("scopes", check_scopes);
    run!("use_and_usage_log", check_use_and_usage_log);
    run!("archive_below", check_archive_below);
    run!("maintenance", check_maintenance);
    run!("maintenance_dedupe", check_maintenance_dedupe);
    run!("dialogue_buffer", check_dialogue_buffer);
    run!("import", check_import);
    run!("import_all_or_nothing", check_import_all_or_nothing);
    run!("concurrent_saves", check_concurrent_saves);
    run!("concurrent_new_scopes", check_concurrent_new_scopes);
    run!("concurrent_use", check_concurrent_use);
    run!("close", check_close);
    report
}

/// Runs every check ([`long_term_report`]) and panics with the report if
/// any failed. Meant for `#[tokio::test(flavor = "multi_thread")]` functions.
///
/// # Panics
/// When a check fails; the message lists each failed check and why.
#[allow(clippy::panic)] // a test harness reports failure by panicking
pub async fn run_long_term_conformance<F, Fut>(make: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = LongTermMemory>,
{
    let report = long_term_report(make).await;
    if !report.is_success() {
        panic!("long-term {report}");
    }
}
