//! The [`MemoryStore`](crate::MemoryStore) of a SQL database, written once
//! for every driver (PostgreSQL, MySQL / MariaDB): [`SqlStore`] validates
//! items, ids, filters and search options, skips empty batches, runs each
//! write transaction again after a lock conflict
//! ([`retry_lock_conflicts`](crate::retry::retry_lock_conflicts)),
//! schedules eviction ([`EvictionCheck`](super::EvictionCheck)) and puts
//! the items of a `get_many` in the order asked, over what a driver
//! implements with its SQL ([`StoreDriver`]). A driver crate holds its
//! connection handling, its SQL text, its type mapping and its search.

mod driver;
mod memory_store;

pub use driver::StoreDriver;
pub use memory_store::SqlStore;

#[cfg(test)]
mod tests;
