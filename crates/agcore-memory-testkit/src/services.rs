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

/// `name`, a test function of the module at `module_path` (its
/// `module_path!()`), as libtest lists it: the module path below the crate
/// root, then the function name. Tests that run one of their own tests in a
/// child process (`current_exe` with `--exact`) name it with
/// [`libtest_name!`](macro@crate::libtest_name).
pub fn libtest_name(module_path: &str, name: &str) -> String {
    match module_path.split_once("::") {
        Some((_, module)) => format!("{module}::{name}"),
        None => name.to_owned(),
    }
}

/// The libtest name of the test function `$name` of the calling module
/// ([`libtest_name`](crate::libtest_name()) with the
/// caller's `module_path!()`), e.g. `multiprocess::child_writer` in a
/// `tests/multiprocess.rs` linked into `tests/integration.rs`.
#[macro_export]
macro_rules! libtest_name {
    ($name:expr) => {
        $crate::libtest_name(::std::module_path!(), $name)
    };
}

#[cfg(test)]
mod tests {
    #[test]
    fn names_drop_the_crate_root() {
        assert_eq!(
            super::libtest_name("integration::multiprocess", "child"),
            "multiprocess::child"
        );
        assert_eq!(super::libtest_name("integration", "child"), "child");
        assert_eq!(crate::libtest_name!("child"), "services::tests::child");
    }
}
