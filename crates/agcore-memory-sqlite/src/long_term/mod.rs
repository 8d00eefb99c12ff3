//! [`SqliteLongTerm`]: long-term memory in a SQLite database file.
//!
//! - Layout: the `memory` table (see `docs/memory.md`, *Tables*) with the
//!   weight, tag, archive and usage columns, `memory_history`, `memory_usage_log` and
//!   `dialogue_buffer`; the `long_term` schema component (`schema.rs`) upgrades
//!   files of earlier releases in place.
//! - Search: BM25 (Robertson & Zaragoza 2009; FTS5 `bm25()`'s formula) over
//!   pre-tokenised keywords (CJK text as character bigrams, as `SqliteStore`
//!   does) with the scope's own statistics, answered as an exact top-k by the
//!   threshold algorithm over the shared impact-ordered postings table keyed by
//!   scope (Fagin, Lotem & Naor 2003; Anh & Moffat 2006): a search reads only
//!   its scope's best postings, never another scope's rows.
//! - Connections: the database's one writer thread (every write one
//!   `IMMEDIATE` transaction) and its reader threads (WAL), shared with the
//!   [`SqliteStore`](crate::SqliteStore) of the same file.
//! - Flows: those of [`agcore_memory::long_term::sql`] (`SqlLongTerm` on
//!   the SQLite driver, `driver`), run to completion on those threads; this
//!   module holds SQLite's row operations and names (`conn`, `rows`), its
//!   times (`time`), its search and its set-based maintenance (`upkeep`).

mod conn;
mod driver;
pub(crate) mod rows;
pub(crate) mod schema;
mod search;
mod time;
mod upkeep;

use agcore_memory::long_term::sql::SqlLongTerm;

pub use driver::SqliteLongTermDriver;

/// Long-term memory in a SQLite database. `Send + Sync`, cheap to clone:
/// the shared [`SqlLongTerm`] on the SQLite driver
/// ([`SqliteLongTermDriver`]), opened with [`SqlLongTerm::open`],
/// [`SqlLongTerm::open_in_memory`] or [`SqliteDatabase::long_term`](crate::SqliteDatabase::long_term).
///
/// The `memory` table (`docs/memory.md`, *Tables*) with weight, tags, archive and usage
/// columns; an impact-ordered BM25 postings table keyed by scope that
/// answers searches as an exact pruned top-k with the scope's own statistics
/// (threshold algorithm, Fagin, Lotem & Naor 2003; impact-ordered postings,
/// Anh & Moffat 2006); `memory_history`, `memory_usage_log` and
/// `dialogue_buffer` tables; schema migrations that upgrade files of earlier
/// releases in place; WAL. It shares its database — file, connections and
/// writer thread — with the [`SqliteStore`](crate::SqliteStore) of the same
/// [`SqliteDatabase`](crate::SqliteDatabase).
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
/// use agcore_memory_sqlite::SqliteLongTerm;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// let memory = LongTermMemory::new(SqliteLongTerm::open_in_memory().await?);
/// let alice = memory.scope("assistant", "alice")?;
/// alice.save(NewMemory::new(MemoryType::User, "语言", "用户喜欢用中文交流")).await?;
/// assert_eq!(alice.search("中文", 5).await?.len(), 1);
/// # Ok(()) }
/// ```
pub type SqliteLongTerm = SqlLongTerm<SqliteLongTermDriver>;
