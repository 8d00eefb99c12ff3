//! Declares the `fuzzing` cfg that `cargo afl build` sets.

fn main() {
    println!("cargo::rustc-check-cfg=cfg(fuzzing)");
}
