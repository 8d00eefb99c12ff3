//! Export and import of the whole wiki as a folder of Markdown files.

use std::path::Path;

use chrono::Utc;

use super::markdown::{
    page_file_name, parse_log, parse_page, render_index, render_log, render_page,
};
use super::page::{log_to_item, page_to_item};
use super::{KnowledgeStore, LogAction, LogEntry, validate_page_id};
use crate::MemoryError;

fn io_error(path: &Path, err: &std::io::Error) -> MemoryError {
    MemoryError::Storage(format!("{}: {err}", path.display()))
}

impl KnowledgeStore {
    /// `index.md` of the current index ([`render_index`]).
    ///
    /// # Errors
    /// As [`Self::get_index`].
    pub async fn index_markdown(&self) -> Result<String, MemoryError> {
        Ok(render_index(&self.get_index().await?))
    }

    /// `log.md` of the current log ([`render_log`]).
    ///
    /// # Errors
    /// As [`Self::log`].
    pub async fn log_markdown(&self) -> Result<String, MemoryError> {
        Ok(render_log(&self.log().await?))
    }

    /// Writes the wiki to `dir` (created if missing): `index.md`, `log.md`
    /// and `pages/{id}.md` per page (front matter + body, see
    /// [`markdown`](super::markdown)). Returns the number of pages written.
    /// Existing files with other names are left alone.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] for file-system errors; the store's errors.
    pub async fn export_dir(&self, dir: impl AsRef<Path>) -> Result<usize, MemoryError> {
        let dir = dir.as_ref();
        let pages_dir = dir.join("pages");
        tokio::fs::create_dir_all(&pages_dir)
            .await
            .map_err(|e| io_error(&pages_dir, &e))?;
        let pages = self.all_pages().await?;
        for page in &pages {
            let path = pages_dir.join(page_file_name(&page.id));
            tokio::fs::write(&path, render_page(page)?)
                .await
                .map_err(|e| io_error(&path, &e))?;
        }
        let index = dir.join("index.md");
        tokio::fs::write(&index, render_index(&self.get_index().await?))
            .await
            .map_err(|e| io_error(&index, &e))?;
        let log = dir.join("log.md");
        tokio::fs::write(&log, render_log(&self.log().await?))
            .await
            .map_err(|e| io_error(&log, &e))?;
        Ok(pages.len())
    }

    /// Reads a folder written by [`Self::export_dir`]: every `pages/*.md` is
    /// added or replaced verbatim (timestamps included) and logged as
    /// `import`. When this store's log is empty, the entries of `log.md` are
    /// restored first, so an export/import round trip keeps the history.
    /// `index.md` is not read: the index is rebuilt from the pages. Every
    /// file is parsed before anything is written. Returns the number of pages read.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] for file-system errors;
    /// [`MemoryError::Serialization`] for a file that does not parse;
    /// [`MemoryError::InvalidInput`] for a bad page id; the store's errors.
    pub async fn import_dir(&self, dir: impl AsRef<Path>) -> Result<usize, MemoryError> {
        let dir = dir.as_ref();
        let pages_dir = dir.join("pages");
        let mut reader = tokio::fs::read_dir(&pages_dir)
            .await
            .map_err(|e| io_error(&pages_dir, &e))?;
        let mut pages = Vec::new();
        while let Some(entry) = reader
            .next_entry()
            .await
            .map_err(|e| io_error(&pages_dir, &e))?
        {
            let path = entry.path();
            if path.extension().and_then(|e| e.to_str()) != Some("md") {
                continue;
            }
            let text = tokio::fs::read_to_string(&path)
                .await
                .map_err(|e| io_error(&path, &e))?;
            let page = parse_page(&path.display().to_string(), &text)?;
            validate_page_id(&page.id)?;
            pages.push(page);
        }
        pages.sort_by(|a, b| a.id.cmp(&b.id));
        let log_path = dir.join("log.md");
        let old_log = match tokio::fs::read_to_string(&log_path).await {
            Ok(text) => parse_log(&text)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io_error(&log_path, &e)),
        };
        let restore_log = self.log().await?.is_empty();
        {
            let _guard = self.write_guard().await?;
            let mut entries: Vec<LogEntry> = Vec::new();
            if restore_log {
                entries.extend(old_log);
            }
            let now = Utc::now();
            entries.extend(pages.iter().map(|p| LogEntry {
                seq: 0,
                at: now,
                action: LogAction::Import,
                page_id: p.id.clone(),
                title: p.title.replace(['\n', '\r'], " "),
            }));
            let mut items = Vec::with_capacity(pages.len() + entries.len());
            for page in &pages {
                items.push(page_to_item(page)?);
            }
            {
                let mut state = self.write_state()?;
                for entry in &mut entries {
                    entry.seq = state.take_log_seq();
                }
            }
            for entry in &entries {
                items.push(log_to_item(entry)?);
            }
            self.store.save_many(items).await?;
        }
        self.rebuild_index().await?;
        Ok(pages.len())
    }
}
