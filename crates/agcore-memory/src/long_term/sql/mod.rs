//! Long-term memory on a SQL database, written once for every driver
//! (PostgreSQL, MySQL / MariaDB): the flows of each write
//! ([`flows`]: save with its duplicate merge, update, delete, usage,
//! maintenance, import) over the row operations a driver implements with
//! its SQL ([`LongTermRows`]), the statements every dialect writes alike
//! ([`statements`], [`entries`], over a driver's [`SqlConn`]), and the [`LongTermBackend`](super::LongTermBackend)
//! ([`SqlLongTerm`]) over the driver's connections, transactions and retry
//! rule ([`SqlDriver`]). A driver crate holds its connection handling, its
//! SQL text and its type mapping.

mod backend;
mod conn;
mod driver;
pub mod entries;
pub mod flows;
mod handle;
mod rows;
pub mod statements;

pub use conn::{SqlConn, SqlParam, SqlType, SqlValue};
pub use driver::{Access, Rows, SqlDriver, Work, WriteIntent, row_by_row_maintenance, work};
pub use entries::{ENTRY_COLUMNS, ENTRY_TYPES, archived_sql, entry_from_values};
pub use handle::{FileDriver, SqlLongTerm};
pub use rows::LongTermRows;

#[cfg(test)]
mod tests;
