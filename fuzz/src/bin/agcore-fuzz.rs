//! `agcore-fuzz TARGET [FILE…]` (or `AGCORE_FUZZ_TARGET=TARGET`).
//!
//! Built by `cargo afl build` (`--cfg fuzzing`), it runs one target of
//! `agcore_fuzz` in AFL++'s persistent mode; `cargo xtask fuzz TARGET` does
//! that. Built normally, it runs the target once on each FILE (a crash file
//! to reproduce, say) and reports `ok` or the panic.

#![allow(clippy::print_stdout)]

use agcore_fuzz::{Target, run};

fn target() -> Target {
    let name = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("AGCORE_FUZZ_TARGET").ok())
        .unwrap_or_default();
    Target::from_name(&name).unwrap_or_else(|| {
        let names: Vec<&str> = Target::ALL.iter().map(|t| t.name()).collect();
        eprintln!(
            "usage: agcore-fuzz TARGET [FILE...] (TARGET: {})",
            names.join(", ")
        );
        std::process::exit(2);
    })
}

#[cfg(fuzzing)]
fn main() {
    let target = target();
    afl::fuzz!(|data: &[u8]| {
        run(target, data);
    });
}

#[cfg(not(fuzzing))]
fn main() {
    let target = target();
    let mut failed = false;
    for path in std::env::args().skip(2) {
        let outcome = std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|data| {
                std::panic::catch_unwind(|| run(target, &data)).map_err(|_| "panicked".to_owned())
            });
        match outcome {
            Ok(()) => println!("ok {path}"),
            Err(message) => {
                failed = true;
                println!("FAILED {path}: {message}");
            }
        }
    }
    std::process::exit(i32::from(failed));
}
