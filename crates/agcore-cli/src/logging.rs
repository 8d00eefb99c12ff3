//! `tracing` output on stderr, quiet unless `-v` or `RUST_LOG` asks for more.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber: errors only by default (the program reports
/// what matters itself, in one sentence), `-v` info and warnings, `-vv` debug,
/// `-vvv` trace; a set `RUST_LOG` wins. Colours only on a terminal.
pub fn init(verbose: u8) {
    let level = match verbose {
        0 => "error",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(level));
    // A second init (never in this program) would only be ignored.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}
