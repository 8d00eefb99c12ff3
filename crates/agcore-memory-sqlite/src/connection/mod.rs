//! The one connection layer of a database file: a writer thread with group
//! commit, reader threads, pragmas set once per connection, and the schema
//! migrated once on open ([`crate::migrate`]). [`SqliteStore`](crate::SqliteStore)
//! and [`SqliteLongTerm`](crate::SqliteLongTerm) are views on one [`Database`].

mod checkpoint;
mod config;
mod worker;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryError};
use rusqlite::{Connection, OpenFlags};
use tokio::sync::oneshot;

pub use config::Durability;
pub(crate) use worker::Job;
use worker::WriterMsg;

use crate::error::{Result, SqliteError};
use crate::store::writer::{StoreWriter, WriteOp};

/// How a [`Database`] is opened.
#[derive(Debug, Clone)]
pub(crate) struct Options {
    /// Reader connections of an on-disk database, ≥ 1.
    pub(crate) readers: usize,
    /// How long a connection waits for another process's lock.
    pub(crate) busy_timeout: Duration,
    /// Commit durability.
    pub(crate) durability: Durability,
    /// The store's eviction policy (applied by the writer).
    pub(crate) eviction: EvictionConfig,
    /// Checkpoints on a background thread instead of SQLite's automatic one.
    pub(crate) background_checkpoint: bool,
    /// The store's context field (`None`: plain BM25).
    pub(crate) context: Option<ContextField>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            readers: std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4)),
            busy_timeout: Duration::from_secs(5),
            durability: Durability::default(),
            eviction: EvictionConfig::none(),
            background_checkpoint: true,
            context: Some(ContextField::default()),
        }
    }
}

fn stopped() -> MemoryError {
    MemoryError::Storage("sqlite: the database is closed".into())
}

/// Handles to the connection threads of one database. Dropping the last
/// handle lets the threads finish their queued work and close their connections.
pub(crate) struct Database {
    writer: Sender<WriterMsg>,
    /// The reader queue; `None` in memory (reads run on the writer).
    readers: Mutex<Option<Sender<Job>>>,
    closed: AtomicBool,
    path: Option<PathBuf>,
    eviction: EvictionConfig,
    context: Option<ContextField>,
}

impl std::fmt::Debug for Database {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Database")
            .field("path", &self.path)
            .field("closed", &self.closed.load(Ordering::Relaxed))
            .finish_non_exhaustive()
    }
}

impl Database {
    /// Opens (creating if needed) the file at `path` (`None`: a private
    /// in-memory database), migrates every component's schema and starts the
    /// threads. Blocks: call it on the blocking pool.
    pub(crate) fn open_blocking(options: &Options, path: Option<PathBuf>) -> Result<Self> {
        let mut conn = match &path {
            Some(path) => Connection::open(path)?,
            None => Connection::open_in_memory()?,
        };
        config::configure_writer(
            &conn,
            path.is_some(),
            options.durability,
            options.busy_timeout,
        )?;
        crate::migrate::migrate(&mut conn)?;
        crate::store::context::sync(&mut conn, options.context.as_ref())?;
        if let Some(path) = path.as_ref().filter(|_| options.background_checkpoint) {
            checkpoint::start(&mut conn, path, options.busy_timeout)?;
        }
        let mut readers = Vec::new();
        if let Some(path) = &path {
            for _ in 0..options.readers.max(1) {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                config::configure_reader(&reader, options.busy_timeout)?;
                readers.push(reader);
            }
        }
        let (writer_tx, writer_rx) = mpsc::channel::<WriterMsg>();
        let store = StoreWriter::new(options.eviction.clone(), options.context.clone());
        worker::spawn("agcore-sqlite-writer", move || {
            worker::run_writer(conn, store, &writer_rx);
        })?;
        let readers = if readers.is_empty() {
            None
        } else {
            let (tx, rx) = mpsc::channel::<Job>();
            let rx = Arc::new(Mutex::new(rx));
            for (n, conn) in readers.into_iter().enumerate() {
                let rx = Arc::clone(&rx);
                worker::spawn(&format!("agcore-sqlite-reader-{n}"), move || {
                    worker::run_reader(conn, &rx);
                })?;
            }
            Some(tx)
        };
        Ok(Self {
            writer: writer_tx,
            readers: Mutex::new(readers),
            closed: AtomicBool::new(false),
            path,
            eviction: options.eviction.clone(),
            context: options.context.clone(),
        })
    }

    /// The database file, `None` in memory.
    pub(crate) fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The store's eviction configuration.
    pub(crate) fn eviction(&self) -> &EvictionConfig {
        &self.eviction
    }

    /// The store's context field.
    pub(crate) fn context(&self) -> Option<&ContextField> {
        self.context.as_ref()
    }

    fn check_open(&self) -> std::result::Result<(), MemoryError> {
        if self.closed.load(Ordering::Acquire) {
            Err(stopped())
        } else {
            Ok(())
        }
    }

    /// Runs a store write on the writer; resolves once it is committed.
    pub(crate) async fn store_write(&self, op: WriteOp) -> std::result::Result<(), MemoryError> {
        self.check_open()?;
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriterMsg::Store(op, tx))
            .map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())?
    }

    /// Runs `f` on a reader connection (the writer's in memory).
    pub(crate) async fn read<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        self.check_open()?;
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        let readers = self
            .readers
            .lock()
            .map_err(|_| MemoryError::Storage("sqlite: reader queue lock poisoned".into()))?
            .clone();
        match readers {
            Some(readers) => readers.send(job).map_err(|_| stopped())?,
            None => self
                .writer
                .send(WriterMsg::Job(job))
                .map_err(|_| stopped())?,
        }
        rx.await.map_err(|_| stopped())?.map_err(MemoryError::from)
    }

    /// Runs `f` on the writer connection, in the writer's order of operations.
    pub(crate) async fn exec<T, F>(&self, f: F) -> std::result::Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        self.check_open()?;
        let (tx, rx) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        self.writer
            .send(WriterMsg::Job(job))
            .map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())?.map_err(MemoryError::from)
    }

    /// Waits for the queued writes, closes the connections; later calls fail
    /// with [`MemoryError::Storage`]. Closing twice is not an error.
    pub(crate) async fn close(&self) -> std::result::Result<(), MemoryError> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        if let Ok(mut readers) = self.readers.lock() {
            // The reader threads stop once their queue is empty and closed.
            readers.take();
        }
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriterMsg::Close(tx))
            .map_err(|_| stopped())?;
        rx.await
            .map_err(|_| stopped())?
            .map_err(|e: SqliteError| MemoryError::from(e))
    }
}

/// Runs blocking `f` on tokio's blocking pool.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T> + Send + 'static,
) -> std::result::Result<T, MemoryError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| MemoryError::Storage(format!("sqlite: blocking task failed: {e}")))?
        .map_err(MemoryError::from)
}
