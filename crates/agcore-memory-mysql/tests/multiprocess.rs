//! Eight OS processes save 2,000 long-term memories and 2,000 store items
//! each into one MariaDB database at once (this test binary re-run as
//! children): every private memory and item is there exactly once, the 50
//! texts (ids) that every process saves are merged into one entry (item)
//! each, and long-term ids are unique
//! ([`agcore_memory_testkit::drivers::multiprocess`]).
#![cfg(test)]

use crate::support::Mysql;

use agcore_memory_testkit::drivers::multiprocess;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "child process of `eight_processes_lose_and_double_nothing`"]
async fn multiprocess_child_writer() {
    multiprocess::child_writer(&Mysql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_processes_lose_and_double_nothing() {
    let child = agcore_memory_testkit::libtest_name!("multiprocess_child_writer");
    multiprocess::eight_processes_lose_and_double_nothing(&Mysql, &child).await;
}
