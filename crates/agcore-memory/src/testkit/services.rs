//! Finding the real servers a backend's tests run against.

/// Whether a missing server must fail the test run: `CI=true` or
/// `AGCORE_REQUIRE_SERVICES=1` (set by `cargo xtask ci`).
pub fn services_required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
        || std::env::var("AGCORE_REQUIRE_SERVICES").is_ok_and(|v| v == "1")
}

/// The value of the environment variable `var` naming a test server (for
/// example `AGCORE_TEST_POSTGRES_URL`, written to `.services/env` by
/// `scripts/services.sh start`).
///
/// `None` with a printed reason when it is unset on a developer's machine, so
/// the test can return early.
///
/// # Panics
/// When it is unset and [`services_required`]: a test that needs a server
/// never passes by skipping in CI.
#[allow(clippy::panic)] // a test harness reports failure by panicking
pub fn service_url(var: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(value) if !value.trim().is_empty() => Some(value),
        _ if services_required() => panic!(
            "{var} is not set but the servers are required (CI=true or \
             AGCORE_REQUIRE_SERVICES=1): run scripts/services.sh start"
        ),
        _ => {
            eprintln!("skipped: {var} is not set (run scripts/services.sh start)");
            None
        }
    }
}
