//! A server outage: saves run while a private MariaDB server is stopped
//! (or killed) and started again. Errors during the outage are recoverable
//! (`MemoryError::Unavailable`), the same store object recovers without being
//! reopened, and every save acknowledged before or after is there
//! ([`agcore_memory_testkit::drivers::outage`]).
#![cfg(test)]

use crate::support::Mysql;

use agcore_memory_testkit::drivers::outage;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn saves_fail_recoverably_during_an_outage_and_resume_after() {
    outage::saves_fail_recoverably_during_an_outage(&Mysql).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_loop_survives_a_killed_server() {
    outage::save_loop_survives_a_killed_server(&Mysql).await;
}
