//! Runnable examples of the agcore crates; see `examples/README.md` and run one with
//! `cargo run -p agcore-examples --example <name>`.
