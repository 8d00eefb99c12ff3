//! The AFL++ entry point: `agcore-fuzz TARGET` (or `AGCORE_FUZZ_TARGET=TARGET`)
//! runs one target of `agcore_fuzz` in AFL's persistent mode. Built by
//! `cargo afl build --release -p agcore-fuzz --features afl`; run by
//! `cargo xtask fuzz TARGET`.

#![allow(clippy::print_stdout)]

use agcore_fuzz::{Target, run};

fn main() {
    let name = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("AGCORE_FUZZ_TARGET").ok())
        .unwrap_or_default();
    let Some(target) = Target::from_name(&name) else {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!("usage: agcore-fuzz TARGET (one of: {})", names.join(", "));
        std::process::exit(2);
    };
    afl::fuzz!(|data: &[u8]| {
        run(target, data);
    });
}
