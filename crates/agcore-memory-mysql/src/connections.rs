//! [`Connections`]: the pool every store of a database draws from, with the
//! time a caller may wait for a connection.

use std::sync::Arc;
use std::time::Duration;

use mysql_async::{Conn, Pool};

use crate::error::{MysqlError, Result};

/// A pool and the time a caller may wait for one of its connections.
#[derive(Clone)]
pub(crate) struct Connections {
    pub(crate) pool: Pool,
    timeout: Duration,
    closed: Arc<std::sync::atomic::AtomicBool>,
}

impl Connections {
    /// Connections from `pool`, each acquired within `timeout`.
    pub(crate) fn new(pool: Pool, timeout: Duration) -> Self {
        Self {
            pool,
            timeout,
            closed: Arc::default(),
        }
    }

    /// A connection, within the acquire timeout.
    ///
    /// # Errors
    /// [`MysqlError::Timeout`] or the driver's error (unavailable).
    pub(crate) async fn get(&self) -> Result<Conn> {
        if self.closed.load(std::sync::atomic::Ordering::Acquire) {
            return Err(crate::error::storage("mysql: this handle is closed"));
        }
        match tokio::time::timeout(self.timeout, self.pool.get_conn()).await {
            Ok(conn) => Ok(conn?),
            Err(_) => Err(MysqlError::Timeout(self.timeout)),
        }
    }

    /// Marks the long-term memory closed: later calls fail. The pool itself
    /// closes with [`crate::MysqlDatabase::close`] or when its last handle drops.
    pub(crate) fn close(&self) {
        self.closed
            .store(true, std::sync::atomic::Ordering::Release);
    }
}
