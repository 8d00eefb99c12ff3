//! Integration tests of agcore-memory-kv: the public testkits, unchanged,
//! against the in-memory reference backend, reopening, failing writes and
//! rankings against SQLite. One test binary; each file is a module.
#![cfg(test)]

mod conformance;
mod failures;
mod long_term_writes;
mod ranking;
mod reopen;
mod storage;
