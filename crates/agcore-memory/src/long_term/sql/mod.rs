//! Long-term memory on a SQL database, written once for every driver
//! (PostgreSQL, MySQL / MariaDB): the flows of each write
//! ([`flows`]: save with its duplicate merge, update, delete, usage,
//! maintenance, import) over the row operations a driver implements with
//! its SQL ([`LongTermRows`]), and the [`LongTermBackend`](super::LongTermBackend)
//! ([`SqlLongTerm`]) over the driver's connections, transactions and retry
//! rule ([`SqlDriver`]). A driver crate holds its connection handling, its
//! SQL text and its type mapping.

mod backend;
mod driver;
pub mod flows;
mod rows;

pub use backend::SqlLongTerm;
pub use driver::{Access, Rows, SqlDriver, Work, WriteIntent, work};
pub use rows::LongTermRows;
