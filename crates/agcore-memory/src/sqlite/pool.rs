//! Threads that own connections: the writer and a pool of readers.
//!
//! SQLite calls block, so no connection is used on the async runtime. The
//! writer connection lives on its own thread ([`super::writer`]); on-disk
//! databases also get reader threads, each with its own read-only connection,
//! sharing one job queue. WAL mode lets the readers run while the writer
//! commits; each read sees the last commit made before it started.

use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread;

use rusqlite::Connection;
use tokio::sync::oneshot;

use super::writer::{ConnJob, WriteOp, Writer, WriterMsg};
use crate::MemoryError;

fn stopped() -> MemoryError {
    MemoryError::Storage("sqlite memory store: its worker thread has stopped".into())
}

fn spawn(name: &str, body: impl FnOnce() + Send + 'static) -> Result<(), MemoryError> {
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(body)
        .map(drop)
        .map_err(|e| {
            MemoryError::Storage(format!("sqlite memory store: cannot start a thread: {e}"))
        })
}

/// Handles to the connection threads. Dropping the last handle lets the
/// threads finish their queued work and close their connections.
pub(crate) struct Workers {
    writer: Sender<WriterMsg>,
    readers: Option<Sender<ConnJob>>,
}

impl Workers {
    /// Starts the writer thread over `writer` and one reader thread per
    /// connection in `readers` (none: reads run on the writer).
    pub(crate) fn start(writer: Writer, readers: Vec<Connection>) -> Result<Self, MemoryError> {
        let (writer_tx, writer_rx) = mpsc::channel::<WriterMsg>();
        spawn("agcore-sqlite-writer", move || writer.run(&writer_rx))?;
        let readers = if readers.is_empty() {
            None
        } else {
            let (tx, rx) = mpsc::channel::<ConnJob>();
            let rx = Arc::new(Mutex::new(rx));
            for (n, conn) in readers.into_iter().enumerate() {
                let rx = Arc::clone(&rx);
                spawn(&format!("agcore-sqlite-reader-{n}"), move || {
                    serve_reads(conn, &rx)
                })?;
            }
            Some(tx)
        };
        Ok(Self {
            writer: writer_tx,
            readers,
        })
    }

    /// Runs `op` on the writer; resolves once it is committed.
    pub(crate) async fn write(&self, op: WriteOp) -> Result<(), MemoryError> {
        let (tx, rx) = oneshot::channel();
        self.writer
            .send(WriterMsg::Write(op, tx))
            .map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())?
    }

    /// Runs `f` on a reader connection (the writer's for in-memory databases).
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: ConnJob = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        match &self.readers {
            Some(readers) => readers.send(job).map_err(|_| stopped())?,
            None => self
                .writer
                .send(WriterMsg::Read(job))
                .map_err(|_| stopped())?,
        }
        rx.await.map_err(|_| stopped())?
    }

    /// Runs `f` on the writer connection, inside the writer's order of operations.
    pub(crate) async fn on_writer<T, F>(&self, f: F) -> Result<T, MemoryError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, MemoryError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        let job: ConnJob = Box::new(move |conn| {
            let _ = tx.send(f(conn));
        });
        self.writer
            .send(WriterMsg::Read(job))
            .map_err(|_| stopped())?;
        rx.await.map_err(|_| stopped())?
    }
}

fn serve_reads(conn: Connection, jobs: &Mutex<Receiver<ConnJob>>) {
    loop {
        // The lock is held only while waiting for a job, never while running one.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        match job {
            Ok(job) => job(&conn),
            Err(_) => break,
        }
    }
    if let Err((_, err)) = conn.close() {
        tracing::warn!(error = %err, "sqlite memory store: closing a reader connection failed");
    }
}
