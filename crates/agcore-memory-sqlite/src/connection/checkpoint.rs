//! WAL checkpoints mostly off the write path.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses its
//! threshold, so that one write pays for copying the whole log into the
//! database file (a stall of tens of milliseconds every few thousand small
//! commits with a large threshold, or a smaller stall every few dozen with a
//! small one). Here the writer's commit hook ([`Connection::wal_hook`], which
//! replaces the automatic checkpoint) does two things:
//! - past [`BACKGROUND_PAGES`] it wakes a checkpointer thread that runs
//!   `PRAGMA wal_checkpoint(PASSIVE)` on its own connection: the bulk of the
//!   copying, which never waits for the writer or readers;
//! - past [`WRITER_PAGES`] it checkpoints on the writer itself, as SQLite's
//!   automatic checkpoint does. By then the checkpointer has copied almost
//!   every frame, so this copies only the tail, and it lets the next
//!   transaction restart the log from its start — which a checkpoint running
//!   beside a busy writer cannot do, so without it the log would grow without
//!   bound and slow every read.

use std::path::Path;
use std::sync::mpsc::{self, Receiver, TrySendError};
use std::time::Duration;

use rusqlite::Connection;
use rusqlite::hooks::Wal;

use crate::error::Result;

/// Log pages after which the checkpointer is woken (about 4 MB at 4 KiB pages).
pub(crate) const BACKGROUND_PAGES: i32 = 250;
/// Log pages after which the writer checkpoints the tail itself (about 32 MB).
pub(crate) const WRITER_PAGES: i32 = 1_000;

/// Installs the commit hook on the writer and starts the checkpointer thread
/// on its own connection to `path`. The thread stops when the writer
/// connection (and with it the hook's sender) is closed.
pub(crate) fn start(writer: &mut Connection, path: &Path, busy_timeout: Duration) -> Result<()> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(busy_timeout)?;
    let (tx, rx) = mpsc::sync_channel::<i32>(1);
    writer.wal_hook(Some(move |wal: &mut Wal, pages: i32| {
        if pages >= WRITER_PAGES {
            if let Err(err) = wal.checkpoint_v2(rusqlite::wal::CheckpointMode::PASSIVE) {
                tracing::debug!(error = %err, pages, "sqlite: writer checkpoint failed");
            }
        } else if pages >= BACKGROUND_PAGES {
            // One pending signal is enough: a full queue means one is waiting.
            match tx.try_send(pages) {
                Ok(()) | Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {}
            }
        }
        Ok(())
    }))?;
    super::worker::spawn("agcore-sqlite-checkpoint", move || run(conn, &rx))
}

fn run(conn: Connection, rx: &Receiver<i32>) {
    while let Ok(pages) = rx.recv() {
        let started = std::time::Instant::now();
        match conn.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, i64>(1)?,
                row.get::<_, i64>(2)?,
            ))
        }) {
            Ok((busy, log, copied)) => {
                tracing::trace!(
                    pages,
                    busy,
                    log,
                    copied,
                    latency_ms = started.elapsed().as_secs_f64() * 1e3,
                    "sqlite: background checkpoint"
                )
            }
            Err(err) => {
                tracing::debug!(error = %err, "sqlite: background checkpoint failed")
            }
        }
    }
    let _ = conn.close();
}
