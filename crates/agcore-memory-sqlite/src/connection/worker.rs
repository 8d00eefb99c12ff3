//! The threads that own connections: one writer and a pool of readers.
//!
//! SQLite calls block, so no connection is used on the async runtime. The
//! writer connection lives on its own thread; on-disk databases also get
//! reader threads, each with its own read-only connection, sharing one job
//! queue. WAL mode lets the readers run while the writer commits; each read
//! sees the last commit made before it started.

use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread;

use rusqlite::Connection;
use tokio::sync::oneshot;

use crate::error::{Result, storage};
use crate::store::writer::{MAX_GROUP, StoreReply, StoreWriter, WriteOp};

/// A job run on a connection's own thread; it answers through its own channel.
pub(crate) type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// What the writer thread receives.
pub(crate) enum WriterMsg {
    /// A store write, committed in one transaction with the store writes
    /// queued behind it (group commit); answered after the commit.
    Store(WriteOp, StoreReply),
    /// A job on the writer connection: long-term writes (each in its own
    /// transaction) and reads that must see the writer's state.
    Job(Job),
    /// Close the connection and stop; later messages are dropped.
    Close(oneshot::Sender<Result<()>>),
}

/// Starts a named thread.
pub(crate) fn spawn(name: &str, body: impl FnOnce() + Send + 'static) -> Result<()> {
    thread::Builder::new()
        .name(name.to_owned())
        .spawn(body)
        .map(drop)
        .map_err(|e| storage(format!("sqlite: cannot start a thread: {e}")))
}

/// The writer thread: serves `rx` until every sender is gone or a
/// [`WriterMsg::Close`] arrives, then closes the connection.
pub(crate) fn run_writer(mut conn: Connection, mut store: StoreWriter, rx: &Receiver<WriterMsg>) {
    let mut pending: Option<WriterMsg> = None;
    loop {
        let first = match pending.take() {
            Some(msg) => msg,
            None => match rx.recv() {
                Ok(msg) => msg,
                Err(_) => break,
            },
        };
        match first {
            WriterMsg::Job(job) => job(&mut conn),
            WriterMsg::Close(reply) => {
                let _ = reply.send(conn.close().map_err(|(_, e)| e.into()));
                return;
            }
            WriterMsg::Store(op, reply) => {
                let mut group = vec![(op, reply)];
                while group.len() < MAX_GROUP {
                    match rx.try_recv() {
                        Ok(WriterMsg::Store(op, reply)) => group.push((op, reply)),
                        Ok(other) => {
                            pending = Some(other);
                            break;
                        }
                        Err(TryRecvError::Empty | TryRecvError::Disconnected) => break,
                    }
                }
                store.commit_group(&mut conn, group);
            }
        }
    }
    if let Err((_, err)) = conn.close() {
        tracing::warn!(error = %err, "sqlite: closing the writer connection failed");
    }
}

/// A reader thread: runs jobs from the shared queue until it closes.
pub(crate) fn run_reader(mut conn: Connection, jobs: &Arc<Mutex<Receiver<Job>>>) {
    loop {
        // The lock is held only while waiting for a job, never while running one.
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => break,
        };
        match job {
            Ok(job) => job(&mut conn),
            Err(_) => break,
        }
    }
    if let Err((_, err)) = conn.close() {
        tracing::warn!(error = %err, "sqlite: closing a reader connection failed");
    }
}
