//! JSONL export and import of one scope, streamed: one [`MemoryEntry`] per
//! line, the format of `agcore memory export`.

use agcore::memory::long_term::{ArchivedFilter, ListOrder, ListRequest, MemoryEntry};
use axum::Json;
use axum::body::{Body, Bytes};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use futures::{StreamExt, TryStreamExt};
use serde::{Deserialize, Serialize};

use crate::ServerError;
use crate::auth::CallerScope;

/// Entries written per import batch (one transaction each).
const IMPORT_BATCH: usize = 256;

/// `GET …/memories/export`: every memory of the scope (archived ones too),
/// oldest first, as `application/x-ndjson`.
#[utoipa::path(get, path = "/v1/memories/export", tag = "memories", responses((status = 200, description = "One JSON memory per line (`agcore memory export`), streamed.", body = String, content_type = "application/x-ndjson"), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn export(CallerScope(scoped): CallerScope) -> Result<Response, ServerError> {
    let mut request = ListRequest::all().order(ListOrder::Created);
    request.archived = ArchivedFilter::Include;
    let entries = scoped.list(&request).await?;
    let lines = futures::stream::iter(entries).map(|entry| {
        serde_json::to_vec(&entry).map(|mut line| {
            line.push(b'\n');
            Bytes::from(line)
        })
    });
    Ok((
        [(CONTENT_TYPE, "application/x-ndjson")],
        Body::from_stream(lines),
    )
        .into_response())
}

/// Answer of an import.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq, utoipa::ToSchema)]
pub struct Imported {
    /// New memories written.
    pub imported: usize,
    /// Lines whose text the scope already held.
    pub skipped: usize,
}

/// `POST …/memories/import`: a JSONL body of `agcore memory export` lines,
/// read as it arrives and written in batches into the caller's scope (each
/// line's own agent and user are replaced by the scope's).
#[utoipa::path(post, path = "/v1/memories/import", tag = "memories", request_body(content = String, content_type = "application/x-ndjson", description = "Lines of `agcore memory export`."), responses((status = 200, body = Imported), (status = "4XX", description = "refused: `{\"error\": \"…\"}`", body = crate::error::ErrorBody)))]
pub async fn import(
    CallerScope(scoped): CallerScope,
    body: Body,
) -> Result<Json<Imported>, ServerError> {
    let mut stream = body.into_data_stream().map_err(std::io::Error::other);
    let mut pending: Vec<u8> = Vec::new();
    let mut batch: Vec<MemoryEntry> = Vec::new();
    let mut result = Imported {
        imported: 0,
        skipped: 0,
    };
    let mut line_no = 0usize;
    loop {
        let chunk = stream.next().await.transpose()?;
        let done = chunk.is_none();
        if let Some(chunk) = chunk {
            pending.extend_from_slice(&chunk);
        } else if !pending.is_empty() {
            pending.push(b'\n');
        }
        while let Some(end) = pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            line_no += 1;
            let text = String::from_utf8_lossy(&line);
            if text.trim().is_empty() {
                continue;
            }
            let entry: MemoryEntry = serde_json::from_str(text.trim())
                .map_err(|e| ServerError::Invalid(format!("line {line_no}: {e}")))?;
            batch.push(entry);
            if batch.len() >= IMPORT_BATCH {
                write(&scoped, &mut batch, &mut result).await?;
            }
        }
        if done {
            break;
        }
    }
    write(&scoped, &mut batch, &mut result).await?;
    Ok(Json(result))
}

async fn write(
    scoped: &agcore::memory::long_term::ScopedMemory,
    batch: &mut Vec<MemoryEntry>,
    result: &mut Imported,
) -> Result<(), ServerError> {
    if batch.is_empty() {
        return Ok(());
    }
    for outcome in scoped.import_entries(std::mem::take(batch)).await? {
        if outcome.created {
            result.imported += 1;
        } else {
            result.skipped += 1;
        }
    }
    Ok(())
}
