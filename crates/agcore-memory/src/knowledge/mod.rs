//! [`KnowledgeStore`]: an LLM-Wiki-style knowledge base over any [`MemoryStore`].

pub mod chunk;
mod export;
pub mod markdown;
mod page;
mod search;
mod state;

use std::sync::{Arc, RwLock};

use chrono::Utc;
use tokio::sync::Mutex;

pub use page::{
    LOG_PREFIX, LogAction, LogEntry, MAX_PAGE_ID_BYTES, PAGE_PREFIX, ScoredPage, index_entry,
    validate_page_id,
};
use page::{log_from_item, log_to_item, page_from_item, page_item_id, page_to_item};
use state::State;

use crate::{KnowledgePage, MemoryError, MemoryFilter, MemoryStore, PageIndexEntry};

/// Wiki pages with an index, backlinks and a change log (Karpathy's LLM Wiki:
/// pages + `index.md` + `log.md`; see `docs/memory.md`, *Knowledge wiki*).
///
/// Pages are stored in the [`MemoryStore`] as items `wiki:page:{id}` (title,
/// summary, tags and body as searchable text; the page as JSON metadata) and
/// log entries as `wiki:log:{seq:020}`. The in-memory index (id → title,
/// summary, tags, updated time) and the backlink map are updated on every
/// add/update/delete and rebuilt from the store by [`KnowledgeStore::open`].
/// Writes are serialised by an async mutex; reads never wait for a write's I/O.
///
/// # Examples
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use agcore_memory::{InMemoryStore, KnowledgePage, KnowledgeStore};
///
/// let wiki = KnowledgeStore::open(Arc::new(InMemoryStore::new())).await?;
/// wiki.add_page(KnowledgePage::new("bm25", "BM25", "A ranking function", "Okapi BM25 ranks documents."))
///     .await?;
/// wiki.add_page(
///     KnowledgePage::new("search", "Search", "How we search", "Keyword search uses BM25.")
///         .with_references(["bm25"]),
/// )
/// .await?;
/// assert_eq!(wiki.backlinks("bm25")?, vec!["search".to_owned()]);
/// assert_eq!(wiki.search("ranking function").await?[0].id, "bm25");
/// # Ok::<(), agcore_memory::MemoryError>(()) }).unwrap();
/// ```
pub struct KnowledgeStore {
    store: Arc<dyn MemoryStore>,
    state: RwLock<State>,
    /// Serialises writes; holds whether the index was loaded from the store.
    writes: Mutex<bool>,
}

impl std::fmt::Debug for KnowledgeStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let pages = self.state.read().map(|s| s.len()).unwrap_or(0);
        f.debug_struct("KnowledgeStore")
            .field("pages", &pages)
            .finish_non_exhaustive()
    }
}

impl KnowledgeStore {
    /// A knowledge store over `store`. The index is loaded from the store on
    /// the first async call (write, [`Self::get_index`], …); until then the
    /// sync [`Self::backlinks`] and [`Self::broken_references`] see an empty
    /// index. [`Self::open`] loads it at once.
    pub fn new(store: Arc<dyn MemoryStore>) -> Self {
        Self {
            store,
            state: RwLock::new(State::default()),
            writes: Mutex::new(false),
        }
    }

    /// A knowledge store over `store`, with the index, backlinks and log
    /// position rebuilt from the pages and log already stored there.
    ///
    /// # Errors
    /// The store's errors; [`MemoryError::Serialization`] for a stored page
    /// or log entry that does not decode.
    pub async fn open(store: Arc<dyn MemoryStore>) -> Result<Self, MemoryError> {
        let this = Self::new(store);
        this.rebuild_index().await?;
        Ok(this)
    }

    /// Re-reads every page and the log position from the store.
    ///
    /// # Errors
    /// As [`Self::open`].
    pub async fn rebuild_index(&self) -> Result<(), MemoryError> {
        let mut loaded = self.writes.lock().await;
        self.load().await?;
        *loaded = true;
        Ok(())
    }

    /// Takes the write lock, loading the index first if it never was.
    async fn write_guard(&self) -> Result<tokio::sync::MutexGuard<'_, bool>, MemoryError> {
        let mut loaded = self.writes.lock().await;
        if !*loaded {
            self.load().await?;
            *loaded = true;
        }
        Ok(loaded)
    }

    /// Reads pages and the log position into the index (write lock held).
    async fn load(&self) -> Result<(), MemoryError> {
        let pages = self.all_pages().await?;
        let last_log = self.log().await?.last().map(|e| e.seq + 1).unwrap_or(0);
        let mut state = State::default();
        for page in &pages {
            state.put(page);
        }
        state.next_log_seq = last_log;
        *self.write_state()? = state;
        Ok(())
    }

    /// The underlying store.
    pub fn store(&self) -> &Arc<dyn MemoryStore> {
        &self.store
    }

    /// Adds a new page and logs `create`.
    ///
    /// # Errors
    /// [`MemoryError::AlreadyExists`] if a page with this id exists;
    /// [`MemoryError::InvalidInput`] for a bad page id ([`validate_page_id`])
    /// or oversized content; the store's errors.
    pub async fn add_page(&self, page: KnowledgePage) -> Result<(), MemoryError> {
        validate_page_id(&page.id)?;
        let _guard = self.write_guard().await?;
        if self.store.get(&page_item_id(&page.id)).await?.is_some() {
            return Err(MemoryError::AlreadyExists(format!("page `{}`", page.id)));
        }
        self.store.save(page_to_item(&page)?).await?;
        self.write_state()?.put(&page);
        self.append_log(LogAction::Create, &page.id, &page.title)
            .await
    }

    /// The page with this id, or `None`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a bad id; the store's errors.
    pub async fn get_page(&self, id: &str) -> Result<Option<KnowledgePage>, MemoryError> {
        validate_page_id(id)?;
        self.store
            .get(&page_item_id(id))
            .await?
            .map(|item| page_from_item(&item))
            .transpose()
    }

    /// Replaces an existing page (its `created_at` is kept, `updated_at` set
    /// to now) and logs `update`.
    ///
    /// # Errors
    /// [`MemoryError::NotFound`] if no page has this id; as [`Self::add_page`].
    pub async fn update_page(&self, mut page: KnowledgePage) -> Result<(), MemoryError> {
        validate_page_id(&page.id)?;
        let _guard = self.write_guard().await?;
        let Some(old) = self.store.get(&page_item_id(&page.id)).await? else {
            return Err(MemoryError::NotFound(format!("page `{}`", page.id)));
        };
        page.created_at = page_from_item(&old)?.created_at;
        page.updated_at = Utc::now().max(page.created_at);
        self.store.save(page_to_item(&page)?).await?;
        self.write_state()?.put(&page);
        self.append_log(LogAction::Update, &page.id, &page.title)
            .await
    }

    /// Deletes a page and logs `delete`. Links to it from other pages stay
    /// (see [`Self::broken_references`]).
    ///
    /// # Errors
    /// [`MemoryError::NotFound`] if no page has this id; the store's errors.
    pub async fn delete_page(&self, id: &str) -> Result<(), MemoryError> {
        validate_page_id(id)?;
        let _guard = self.write_guard().await?;
        let Some(old) = self.store.get(&page_item_id(id)).await? else {
            return Err(MemoryError::NotFound(format!("page `{id}`")));
        };
        let title = page_from_item(&old)?.title;
        self.store.delete(&page_item_id(id)).await?;
        self.write_state()?.remove(id);
        self.append_log(LogAction::Delete, id, &title).await
    }

    /// The index: one entry per page, ordered by id.
    ///
    /// # Errors
    /// The store's errors when the index is loaded first;
    /// [`MemoryError::Storage`] if the index lock is poisoned.
    pub async fn get_index(&self) -> Result<Vec<PageIndexEntry>, MemoryError> {
        drop(self.write_guard().await?);
        Ok(self.read_state()?.index())
    }

    /// Ids of the pages whose `references` include `id`, sorted.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the index lock is poisoned.
    pub fn backlinks(&self, id: &str) -> Result<Vec<String>, MemoryError> {
        Ok(self.read_state()?.backlinks(id))
    }

    /// `(page, missing target)` pairs for references to pages that do not exist.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] if the index lock is poisoned.
    pub fn broken_references(&self) -> Result<Vec<(String, String)>, MemoryError> {
        Ok(self.read_state()?.broken_references())
    }

    /// Every page, ordered by id.
    ///
    /// # Errors
    /// The store's errors; [`MemoryError::Serialization`].
    pub async fn all_pages(&self) -> Result<Vec<KnowledgePage>, MemoryError> {
        let items = self
            .store
            .list(&MemoryFilter::with_prefix(PAGE_PREFIX))
            .await?;
        let mut pages = items
            .iter()
            .map(page_from_item)
            .collect::<Result<Vec<_>, _>>()?;
        pages.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(pages)
    }

    /// The change log, oldest first.
    ///
    /// # Errors
    /// The store's errors; [`MemoryError::Serialization`].
    pub async fn log(&self) -> Result<Vec<LogEntry>, MemoryError> {
        let items = self
            .store
            .list(&MemoryFilter::with_prefix(LOG_PREFIX))
            .await?;
        let mut entries = items
            .iter()
            .map(log_from_item)
            .collect::<Result<Vec<_>, _>>()?;
        entries.sort_by_key(|e| e.seq);
        Ok(entries)
    }

    async fn append_log(
        &self,
        action: LogAction,
        page_id: &str,
        title: &str,
    ) -> Result<(), MemoryError> {
        let seq = self.write_state()?.take_log_seq();
        let entry = LogEntry {
            seq,
            at: Utc::now(),
            action,
            page_id: page_id.to_owned(),
            title: title.replace(['\n', '\r'], " "),
        };
        tracing::debug!(page = page_id, action = action.as_str(), seq, "wiki change");
        self.store.save(log_to_item(&entry)?).await
    }

    fn read_state(&self) -> Result<std::sync::RwLockReadGuard<'_, State>, MemoryError> {
        self.state
            .read()
            .map_err(|_| MemoryError::Storage("knowledge index lock poisoned".into()))
    }

    fn write_state(&self) -> Result<std::sync::RwLockWriteGuard<'_, State>, MemoryError> {
        self.state
            .write()
            .map_err(|_| MemoryError::Storage("knowledge index lock poisoned".into()))
    }
}
