//! Shared test scaffolding for the server drivers (MySQL / MariaDB,
//! PostgreSQL, Redis): the checks that need a real server — several OS
//! processes writing at once ([`multiprocess`]), a server outage
//! ([`outage`]), ranking like the SQLite reference ([`ranking`]) — and
//! private servers to break ([`PrivateServer`]).
//!
//! A driver implements [`ServerHarness`] once in its tests (how to open its
//! store in a named instance — a database, a schema, a key prefix — and how
//! to drop them) and calls each check in a few lines:
//!
//! ```no_run
//! use std::sync::Arc;
//! use agcore_memory::{InMemoryStore, MemoryStore};
//! use agcore_memory_testkit::drivers::{Opened, ServerHarness, outage};
//!
//! /// A driver's harness (a real one opens its store on the server at `url`).
//! struct MyDriver;
//!
//! impl ServerHarness for MyDriver {
//!     fn name(&self) -> &'static str { "mydriver" }
//!     fn url_var(&self) -> &'static str { "AGCORE_TEST_MYDRIVER_URL" }
//!     fn server_kind(&self) -> &'static str { "postgres" }
//!     async fn open(&self, _url: &str, _name: &str, _pool_size: usize) -> Opened {
//!         Opened { store: Arc::new(InMemoryStore::new()), long_term: None }
//!     }
//!     async fn open_with_timeouts(&self, _url: &str) -> Arc<dyn MemoryStore> {
//!         Arc::new(InMemoryStore::new())
//!     }
//!     async fn drop_instances(&self, _url: &str, _prefix: &str) {}
//! }
//!
//! // In the driver's tests, under `#[tokio::test(flavor = "multi_thread")]`:
//! async fn saves_fail_recoverably_during_an_outage_and_resume_after() {
//!     outage::saves_fail_recoverably_during_an_outage(&MyDriver).await;
//! }
//! ```
//!
//! Every check reads the shared server's URL from
//! [`ServerHarness::url_var`] with [`service_url`](crate::service_url): it
//! returns early (passing) when the variable is unset on a developer's
//! machine and fails when the servers are required (`CI=true`).
//! The checks report failure by panicking, naming the check and what was seen.

mod instance;
pub mod multiprocess;
pub mod outage;
pub mod ranking;

use std::fmt::Display;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agcore_memory::MemoryStore;
use agcore_memory::long_term::LongTermMemory;

pub use instance::PrivateServer;

use crate::{CheckFailure, CheckResult};

/// A store and (where the driver has one) its long-term memory, opened in
/// one instance by [`ServerHarness::open`].
#[derive(Clone)]
pub struct Opened {
    /// The [`MemoryStore`] of the instance.
    pub store: Arc<dyn MemoryStore>,
    /// The long-term memory of the same instance; `None` for a driver
    /// without one (Redis), which then cannot run the long-term checks.
    pub long_term: Option<LongTermMemory>,
}

/// What a server driver's tests tell the shared checks, implemented once per
/// driver (usually on a unit struct in `tests/support/mod.rs`).
///
/// An *instance* is the driver's unit of isolation on the shared server: a
/// database (MySQL), a schema (PostgreSQL), a key prefix (Redis). Its name
/// comes from [`instance_name`] and starts with [`instance_prefix`].
pub trait ServerHarness: Sync {
    /// The driver's name in failure messages (`mysql`, `postgres`, `redis`).
    fn name(&self) -> &'static str;

    /// The environment variable naming the shared test server, e.g.
    /// `AGCORE_TEST_MYSQL_URL`.
    fn url_var(&self) -> &'static str;

    /// The kind of private server `scripts/databases.sh instance` starts for
    /// the outage checks: `mariadb`, `postgres` or `redis`.
    fn server_kind(&self) -> &'static str;

    /// The separator of the parts of an instance name (`_`, or `:` for
    /// Redis key prefixes).
    fn separator(&self) -> &'static str {
        "_"
    }

    /// The environment variable through which a child process of the
    /// multi-process check learns its instance's name.
    fn child_instance_env(&self) -> &'static str {
        "AGCORE_MULTIPROCESS_INSTANCE"
    }

    /// Creates instance `name` on the server of `url` where the driver does
    /// not create it on opening (a MySQL database). By default nothing.
    fn create(&self, url: &str, name: &str) -> impl Future<Output = ()> + Send {
        let _ = (url, name);
        async {}
    }

    /// Opens the store (and long-term memory) of instance `name` on the
    /// server of `url` with a connection pool of `pool_size` (where the
    /// driver has a pool), creating and migrating its tables when missing.
    fn open(&self, url: &str, name: &str, pool_size: usize) -> impl Future<Output = Opened> + Send;

    /// Opens the store of the server at `url` itself (a private server of
    /// [`server_kind`](Self::server_kind)) with connect and acquire timeouts
    /// of 2 s and a pool of 2, so an unreachable server fails a call in
    /// seconds.
    fn open_with_timeouts(&self, url: &str) -> impl Future<Output = Arc<dyn MemoryStore>> + Send;

    /// Drops every instance whose name starts with `prefix` (one of
    /// [`instance_prefix`]).
    fn drop_instances(&self, url: &str, prefix: &str) -> impl Future<Output = ()> + Send;

    /// Read just before the searches of a ranking check; its value goes to
    /// [`after_searches`](Self::after_searches). By default 0.
    fn before_searches(&self, url: &str) -> impl Future<Output = u64> + Send {
        let _ = url;
        async { 0 }
    }

    /// Called after the `searches` searches of a ranking check, with the
    /// value of [`before_searches`](Self::before_searches): a driver checks
    /// here what the searches must not have done on the server (MySQL: write
    /// on-disk temporary tables), panicking if they did. By default nothing.
    fn after_searches(
        &self,
        url: &str,
        before: u64,
        searches: usize,
    ) -> impl Future<Output = ()> + Send {
        let _ = (url, before, searches);
        async {}
    }
}

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// The first part of the names of this process's instances tagged `tag`:
/// `agt{sep}{tag}{sep}{pid}{sep}`.
pub fn instance_prefix(separator: &str, tag: &str) -> String {
    let s = separator;
    format!("agt{s}{tag}{s}{}{s}", std::process::id())
}

/// An instance name unique to this process and call:
/// [`instance_prefix`] followed by a counter.
pub fn instance_name(separator: &str, tag: &str) -> String {
    format!(
        "{}{}",
        instance_prefix(separator, tag),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The shared server's URL of `harness`, or `None` when the check should
/// return early ([`service_url`](crate::service_url)).
fn server_url<H: ServerHarness>(harness: &H) -> Option<String> {
    crate::service_url(harness.url_var())
}

/// A fresh instance tagged `tag` of `harness`'s shared server at `url`,
/// created and opened with a pool of `pool_size`.
async fn fresh<H: ServerHarness>(harness: &H, url: &str, tag: &str, pool_size: usize) -> Opened {
    let name = instance_name(harness.separator(), tag);
    harness.create(url, &name).await;
    harness.open(url, &name, pool_size).await
}

/// `result`'s error as a [`CheckFailure`] saying `what` failed.
fn or_fail<T, E: Display>(result: Result<T, E>, what: &str) -> Result<T, CheckFailure> {
    result.map_err(|err| CheckFailure(format!("{what}: {err}")))
}

/// The long-term memory of `opened`, or a failure naming the driver.
fn long_term_of(opened: &Opened, driver: &str) -> Result<LongTermMemory, CheckFailure> {
    opened
        .long_term
        .clone()
        .ok_or_else(|| CheckFailure(format!("{driver} opened no long-term memory")))
}

/// Panics with `check` and the failure's message when `result` failed.
#[allow(clippy::panic)] // a test harness reports failure by panicking
fn report(check: &str, result: CheckResult) {
    if let Err(why) = result {
        panic!("{check}: {why}");
    }
}

#[cfg(test)]
mod tests {
    use super::{instance_name, instance_prefix};

    #[test]
    fn instance_names_start_with_their_prefix_and_differ() {
        let pid = std::process::id();
        assert_eq!(instance_prefix("_", "rank"), format!("agt_rank_{pid}_"));
        assert_eq!(instance_prefix(":", "rank"), format!("agt:rank:{pid}:"));
        let (a, b) = (instance_name("_", "rank"), instance_name("_", "rank"));
        assert_ne!(a, b);
        for name in [&a, &b] {
            assert!(name.starts_with(&instance_prefix("_", "rank")), "{name}");
        }
        assert!(!a.starts_with(&instance_prefix("_", "ran")));
    }
}
