//! The management page in a real browser (written next).
#![cfg(test)]
