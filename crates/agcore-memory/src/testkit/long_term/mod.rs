//! A conformance suite for [`LongTermBackend`](crate::long_term::LongTermBackend)s
//! (feature `testkit`): every backend — the built-in ones or yours — runs
//! the same checks through [`LongTermMemory`], each on a fresh, empty memory.
//!
//! Checks: duplicate saves merge (per scope, by
//! [`content_key`](crate::long_term::content_key)); update, supersede and
//! delete keep history; scopes never see each other's entries, not even
//! through search statistics; BM25 search in English and Chinese with type
//! and archive filters and literal query text; weights rise with use and
//! decay with age, the usage log is written and goes with its entry;
//! archiving; the dialogue buffer; backup import (duplicates skipped, all
//! or nothing); concurrent saves.
//!
//! ```
//! use agcore_memory::long_term::{InMemoryLongTerm, LongTermMemory};
//! use agcore_memory::testkit::long_term::run_long_term_conformance;
//!
//! # fn block_on<F: std::future::Future>(f: F) -> F::Output {
//! #     tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap().block_on(f)
//! # }
//! # block_on(async {
//! run_long_term_conformance(|| async { LongTermMemory::new(InMemoryLongTerm::new()) }).await;
//! # });
//! ```

mod buffer;
mod search;
mod weights;
mod write;

use std::future::Future;

pub use buffer::{check_concurrent_saves, check_dialogue_buffer, check_import};
pub use search::{check_scope_isolation, check_search};
pub use weights::{check_archive_and_maintenance, check_use_and_usage_log};
pub use write::{check_duplicates_merge, check_history};

use super::ConformanceReport;
use crate::long_term::{ArchivedFilter, ListRequest, LongTermMemory};

/// Every entry, archived ones included.
fn including_archived() -> ListRequest {
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    request
}

/// Runs every check, each on a fresh memory from `make`, and returns the report.
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
    run!("duplicates_merge", check_duplicates_merge);
    run!("history", check_history);
    run!("search", check_search);
    run!("scope_isolation", check_scope_isolation);
    run!("use_and_usage_log", check_use_and_usage_log);
    run!("archive_and_maintenance", check_archive_and_maintenance);
    run!("dialogue_buffer", check_dialogue_buffer);
    run!("import", check_import);
    run!("concurrent_saves", check_concurrent_saves);
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
