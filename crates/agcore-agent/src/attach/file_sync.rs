//! Bringing a `file` store's index up to date: scan the sources, keep the
//! chunks of files whose size and modification time (or, when those moved,
//! content hash) are unchanged, re-chunk new and changed files, drop the
//! chunks of deleted ones.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use super::chunking::{ChunkingConfig, chunk_file};
use super::file_index::{FileIndex, Found, IndexedChunk, IndexedFile, content_hash, scan};
use crate::AgentError;

/// One source folder or file, resolved.
#[derive(Debug, Clone)]
pub struct Source {
    /// Folder or file.
    pub path: PathBuf,
    /// Extensions kept (all when empty).
    pub file_types: Vec<String>,
    /// Whether sub-folders are read.
    pub recursive: bool,
    /// The files' text encoding.
    pub encoding: &'static encoding_rs::Encoding,
    /// Files larger than this many bytes are skipped (counted in
    /// [`IndexStats::files_skipped`], logged), never read.
    pub max_file_bytes: u64,
}

/// What one synchronisation did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Files found by the scan.
    pub files_scanned: usize,
    /// Files kept as they were (size and time, or hash, unchanged).
    pub files_unchanged: usize,
    /// New or changed files chunked again.
    pub files_indexed: usize,
    /// Of `files_indexed`, those the previous index did not hold (new files).
    pub files_new: usize,
    /// Files gone since the last index, and indexed files that grew past
    /// the size limit.
    pub files_removed: usize,
    /// Files not read because they are larger than the store's
    /// `max_file_bytes`.
    pub files_skipped: usize,
    /// Chunks made from new or changed files.
    pub chunks_indexed: usize,
    /// Chunks of changed and deleted files dropped (a changed file's
    /// chunks are replaced by its new ones).
    pub chunks_removed: usize,
    /// Chunks in the index afterwards.
    pub chunks_total: usize,
}

/// How far a `file` store's load is, for progress bars
/// ([`crate::attach::stores::file::FileStore::load_with_progress`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadProgress {
    /// The sources were scanned: `files` files will be checked.
    Scanned {
        /// Files found.
        files: usize,
    },
    /// `done` of `total` files are checked (kept, or read and chunked).
    File {
        /// Files checked so far.
        done: usize,
        /// Files found by the scan.
        total: usize,
    },
    /// `chunks` new chunks are being embedded (stores with an embedding).
    Embedding {
        /// Chunks without a vector.
        chunks: usize,
    },
}

/// Receives [`LoadProgress`] from the thread that reads the files.
pub type ProgressFn = Arc<dyn Fn(LoadProgress) + Send + Sync>;

/// The result of [`sync`]: the new index, the ids to add and remove, stats.
#[derive(Debug)]
pub struct SyncResult {
    /// The updated index (new chunks without vectors yet).
    pub index: FileIndex,
    /// Chunk ids made by this sync.
    pub added: Vec<String>,
    /// Chunk ids to delete (dropped and not made again).
    pub removed: Vec<String>,
    /// Counters.
    pub stats: IndexStats,
}

/// Synchronises `old` with the files of `sources` (blocking file I/O),
/// reporting each file checked to `progress`.
///
/// # Errors
/// [`AgentError::Io`] when a source or file cannot be read.
pub fn sync(
    sources: &[Source],
    old: FileIndex,
    chunking: &ChunkingConfig,
    progress: &ProgressFn,
) -> Result<SyncResult, AgentError> {
    let found = scan_sources(sources)?;
    let total = found.len();
    progress(LoadProgress::Scanned { files: total });
    let mut pass = Pass {
        stats: IndexStats {
            files_scanned: total,
            ..IndexStats::default()
        },
        previous: old.files,
        files: BTreeMap::new(),
        added: Vec::new(),
        removed: Vec::new(),
    };
    for (done, (file, source)) in found.into_iter().enumerate() {
        progress(LoadProgress::File { done, total });
        pass.check(file, source, chunking)?;
    }
    progress(LoadProgress::File { done: total, total });
    let Pass {
        mut stats,
        previous,
        files,
        added,
        mut removed,
    } = pass;
    for (_, gone) in previous {
        stats.files_removed += 1;
        removed.extend(gone.chunks.into_iter().map(|c| c.id));
    }
    stats.chunks_removed = removed.len();
    // An id both removed and re-added (a changed file) is replaced, not deleted.
    let fresh: HashSet<&String> = added.iter().collect();
    removed.retain(|id| !fresh.contains(id));
    let index = FileIndex { files, ..old };
    stats.chunks_total = index.chunk_count();
    Ok(SyncResult {
        index,
        added,
        removed,
        stats,
    })
}

/// Every file of `sources`, with the source it was found in.
///
/// # Errors
/// [`AgentError::Io`] when a source cannot be read.
fn scan_sources(sources: &[Source]) -> Result<Vec<(Found, &Source)>, AgentError> {
    let mut found = Vec::new();
    for source in sources {
        let mut files = Vec::new();
        scan(
            &source.path,
            &source.file_types,
            source.recursive,
            &mut files,
        )?;
        found.extend(files.into_iter().map(|f| (f, source)));
    }
    Ok(found)
}

/// One synchronisation in progress.
struct Pass {
    stats: IndexStats,
    /// Files of the old index not met yet (deleted unless met).
    previous: BTreeMap<PathBuf, IndexedFile>,
    /// The new index's files.
    files: BTreeMap<PathBuf, IndexedFile>,
    added: Vec<String>,
    removed: Vec<String>,
}

impl Pass {
    /// Checks one found file: skipped over the size limit, kept when its
    /// size and time (or hash) are unchanged, else read and chunked again.
    ///
    /// # Errors
    /// [`AgentError::Io`] when the file cannot be read.
    fn check(
        &mut self,
        file: Found,
        source: &Source,
        chunking: &ChunkingConfig,
    ) -> Result<(), AgentError> {
        if file.size > source.max_file_bytes {
            tracing::warn!(
                path = %file.path.display(),
                bytes = file.size,
                limit = source.max_file_bytes,
                "file store: skipping a file over max_file_bytes"
            );
            self.stats.files_skipped += 1;
            return Ok(());
        }
        let before = match self.previous.remove(&file.path) {
            Some(entry) if entry.size == file.size && entry.mtime_ns == file.mtime_ns => {
                self.stats.files_unchanged += 1;
                self.files.insert(file.path, entry);
                return Ok(());
            }
            before => before,
        };
        let bytes = std::fs::read(&file.path).map_err(|e| AgentError::io(&file.path, &e))?;
        let hash = content_hash(&bytes);
        if before.is_none() {
            self.stats.files_new += 1;
        }
        if let Some(mut entry) = before {
            if entry.hash == hash {
                self.stats.files_unchanged += 1;
                entry.size = file.size;
                entry.mtime_ns = file.mtime_ns;
                self.files.insert(file.path, entry);
                return Ok(());
            }
            self.removed.extend(entry.chunks.into_iter().map(|c| c.id));
        }
        let (text, _, _) = source.encoding.decode(&bytes);
        let chunks: Vec<IndexedChunk> = chunk_file(&file.rel, &text, chunking)
            .into_iter()
            .enumerate()
            .map(|(n, chunk)| IndexedChunk {
                id: format!("{}#{n}", file.path.display()),
                title: chunk.title,
                text: chunk.text,
                vector: None,
            })
            .collect();
        self.stats.files_indexed += 1;
        self.stats.chunks_indexed += chunks.len();
        self.added.extend(chunks.iter().map(|c| c.id.clone()));
        self.files.insert(
            file.path,
            IndexedFile {
                size: file.size,
                mtime_ns: file.mtime_ns,
                hash,
                chunks,
            },
        );
        Ok(())
    }
}
