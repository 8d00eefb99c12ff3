//! [`SqlLongTerm`]: long-term memory over a SQL driver, and opening one
//! on a driver whose database is a file ([`FileDriver`]).

use std::path::Path;

use async_trait::async_trait;

use super::driver::{Access, SqlDriver, work};
use crate::MemoryError;

/// Long-term memory in the tables of a SQL driver `D`: the flows are
/// shared, the driver holds its connections, SQL and type mapping. Cheap to
/// clone when `D` is.
#[derive(Debug, Clone)]
pub struct SqlLongTerm<D> {
    pub(super) driver: D,
}

impl<D: SqlDriver> SqlLongTerm<D> {
    /// Long-term memory on `driver`.
    pub fn new(driver: D) -> Self {
        Self { driver }
    }

    /// The driver.
    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// A statement outside a transaction: `op` on the rows with owned `input`.
    pub(super) async fn call<I, T, F>(
        &self,
        access: Access,
        input: I,
        op: F,
    ) -> Result<T, MemoryError>
    where
        I: Clone + Send + Sync + 'static,
        T: Send + 'static,
        F: for<'t> Fn(
                &'t mut super::driver::Rows<'t, D::Error>,
                I,
            ) -> futures::future::BoxFuture<'t, Result<T, D::Error>>
            + Send
            + Sync
            + 'static,
    {
        let work = work(move |rows| op(rows, input.clone()));
        self.driver.run(access, work).await
    }
}

/// A driver whose database is a file it opens itself (an embedded
/// database), or a private database in memory.
#[async_trait]
pub trait FileDriver: SqlDriver + Sized {
    /// Opens (creating if needed) the database at `path` and migrates it,
    /// keeping every row.
    ///
    /// # Errors
    /// The database's, as [`MemoryError`].
    async fn open(path: &Path) -> Result<Self, MemoryError>;

    /// A private database in memory, gone when the last handle is dropped.
    ///
    /// # Errors
    /// The database's, as [`MemoryError`].
    async fn open_in_memory() -> Result<Self, MemoryError>;

    /// The database file, `None` in memory.
    fn path(&self) -> Option<&Path>;
}

impl<D: FileDriver> SqlLongTerm<D> {
    /// Opens (creating if needed) the database at `path` with the driver's
    /// default options and migrates it, keeping every row.
    ///
    /// # Errors
    /// As [`FileDriver::open`].
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        Ok(Self::new(D::open(path.as_ref()).await?))
    }

    /// Long-term memory in a private database in memory.
    ///
    /// # Errors
    /// As [`FileDriver::open_in_memory`].
    pub async fn open_in_memory() -> Result<Self, MemoryError> {
        Ok(Self::new(D::open_in_memory().await?))
    }

    /// The database file, `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.driver.path()
    }
}
