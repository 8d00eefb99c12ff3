//! [`SqliteStore`]: a [`MemoryStore`] in a SQLite database file with an
//! impact-ordered full-text index.
//!
//! - Layout: an items table and its postings in the impact-ordered index
//!   shared with long-term memory (the `store` schema component,
//!   `schema.rs`).
//! - Search: [`agcore_memory::InMemoryStore`]'s ranking — BM25 over the
//!   items' analyzer terms (stemmed English words; CJK text as character
//!   bigrams, see [`agcore_search::index_terms`]; Robertson &
//!   Zaragoza 2009, k1 = 1.2, b = 0.75, idf
//!   [`Bm25::idf`](agcore_search::Bm25::idf)) with the context
//!   field of neighbouring items as a second BM25F field (Robertson,
//!   Zaragoza & Taylor 2004; see `context/` and
//!   [`ContextField`](agcore_memory::retriever::ContextField)) —
//!   answered as an exact top-k by the threshold algorithm over an
//!   impact-ordered postings table (Fagin, Lotem & Naor 2003; Anh & Moffat
//!   2006) kept in the same transactions as the items, so a search reads the
//!   best postings of its terms instead of scoring every match. The query
//!   is literal text: full-text query syntax and SQL in it are searched as
//!   words.
//! - Durability: WAL journal; a write whose future has resolved is committed
//!   and survives the process being killed ([`Durability`] for power loss).
//! - Concurrency: the database's one writer thread (group commit) and reader
//!   threads with their own connections, shared with the
//!   [`SqliteLongTerm`](crate::SqliteLongTerm) of the same file; no SQLite
//!   call runs on the async runtime.

mod builder;
pub(crate) mod context;
pub(crate) mod query;
pub(crate) mod schema;
pub(crate) mod search;
pub(crate) mod writer;

use crate::error::Result;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;

use self::query::{ITEM_COLUMNS, filter_sql, list_filter_sql};
use self::writer::WriteOp;
use crate::connection::Database;
pub use crate::connection::Durability;
use agcore_memory::retriever::validate_search_options;
use agcore_memory::{
    EvictionConfig, MemoryError, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
    validate_id,
};
use agcore_search::capped_query_terms;
pub use builder::SqliteStoreBuilder;

/// A [`MemoryStore`] in SQLite with an impact-ordered full-text index (see
/// the [module docs](self)).
///
/// `Send + Sync` and cheap to clone; share it as `Arc<dyn MemoryStore>`.
/// Dropping the last handle on the database lets queued operations finish,
/// then closes the connections.
///
/// # Examples
/// ```
/// use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
/// use agcore_memory_sqlite::SqliteStore;
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), agcore_memory::MemoryError> {
/// let store = SqliteStore::open_in_memory().await?;
/// store.save(MemoryItem::new("note:1", "The user prefers concise answers")).await?;
/// store.save(MemoryItem::new("note:2", "用户喜欢简洁的回答")).await?;
/// let hits = store.search("concise answer", &SearchOptions::top_k(5)).await?;
/// assert_eq!(hits[0].item.id, "note:1");
/// let hits = store.search("简洁", &SearchOptions::top_k(5)).await?;
/// assert_eq!(hits[0].item.id, "note:2");
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct SqliteStore {
    db: Arc<Database>,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.db.path())
            .field("eviction", self.db.eviction())
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    pub(crate) fn new(db: Arc<Database>) -> Self {
        Self { db }
    }

    /// Options: eviction, readers, busy timeout, durability.
    pub fn builder() -> SqliteStoreBuilder {
        SqliteStoreBuilder::default()
    }

    /// Opens (creating if needed) the database at `path` with default options.
    ///
    /// # Errors
    /// As [`SqliteStoreBuilder::open`].
    pub async fn open(path: impl AsRef<Path>) -> std::result::Result<Self, MemoryError> {
        Self::builder().open(path).await
    }

    /// A private in-memory database with default options.
    ///
    /// # Errors
    /// As [`SqliteStoreBuilder::open_in_memory`].
    pub async fn open_in_memory() -> std::result::Result<Self, MemoryError> {
        Self::builder().open_in_memory().await
    }

    /// The database file, `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.db.path()
    }

    /// The eviction configuration.
    pub fn eviction(&self) -> &EvictionConfig {
        self.db.eviction()
    }

    /// Applies the eviction policy now, whatever the write count; returns how
    /// many items were dropped.
    ///
    /// # Errors
    /// [`MemoryError::Storage`].
    pub async fn evict_now(&self) -> std::result::Result<usize, MemoryError> {
        let policy = self.eviction().policy.clone();
        let window = context::window(self.db.context());
        self.db
            .exec(move |conn| {
                let tx = conn.unchecked_transaction()?;
                let removed = writer::evict(&tx, &policy, window)?;
                tx.commit()?;
                Ok(removed)
            })
            .await
    }

    /// Runs SQLite's `PRAGMA integrity_check` and a consistency check of the
    /// impact-ordered index (statistics, document frequencies and postings
    /// against the rows) and of the context fields (each against its
    /// neighbours); `Ok` with the problems found (empty when the database is
    /// sound).
    ///
    /// # Errors
    /// [`MemoryError::Storage`] when the checks cannot run.
    pub async fn integrity_check(&self) -> std::result::Result<Vec<String>, MemoryError> {
        let window = context::window(self.db.context());
        self.db
            .exec(move |conn| {
                let mut stmt = conn.prepare("PRAGMA integrity_check")?;
                let mut problems: Vec<String> = stmt
                    .query_map([], |row| row.get::<_, String>(0))?
                    .collect::<Result<_, _>>()?;
                problems.retain(|p| p != "ok");
                problems.extend(context::check(conn, window)?);
                Ok(problems)
            })
            .await
    }
}

#[async_trait]
impl MemoryStore for SqliteStore {
    async fn save(&self, item: MemoryItem) -> std::result::Result<(), MemoryError> {
        item.validate()?;
        self.db.store_write(WriteOp::Upsert(vec![item])).await
    }

    /// [`Self::get_many`] of one id.
    async fn get(&self, id: &str) -> std::result::Result<Option<MemoryItem>, MemoryError> {
        Ok(self.get_many(&[id.to_owned()]).await?.pop().flatten())
    }

    /// One read task for every id, one cached statement.
    async fn get_many(
        &self,
        ids: &[String],
    ) -> std::result::Result<Vec<Option<MemoryItem>>, MemoryError> {
        for id in ids {
            validate_id(id)?;
        }
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let ids = ids.to_vec();
        self.db
            .read(move |conn| {
                let sql = format!("SELECT {ITEM_COLUMNS} FROM memory_items i WHERE i.id = ?1");
                let mut stmt = conn.prepare_cached(&sql)?;
                let mut items = Vec::with_capacity(ids.len());
                for id in &ids {
                    let mut rows = stmt.query([id])?;
                    items.push(match rows.next()? {
                        Some(row) => Some(query::item_from_row(row)?),
                        None => None,
                    });
                }
                Ok(items)
            })
            .await
    }

    async fn delete(&self, id: &str) -> std::result::Result<(), MemoryError> {
        validate_id(id)?;
        self.db.store_write(WriteOp::Delete(id.to_owned())).await
    }

    async fn list(
        &self,
        filter: &MemoryFilter,
    ) -> std::result::Result<Vec<MemoryItem>, MemoryError> {
        filter.validate()?;
        let where_ = list_filter_sql(filter, self.db.context());
        let limit = filter
            .limit
            .map_or(-1, |l| i64::try_from(l).unwrap_or(i64::MAX));
        self.db
            .read(move |conn| {
                let sql = format!(
                    "SELECT {ITEM_COLUMNS} FROM memory_items i WHERE {} \
                     ORDER BY i.created_secs, i.created_nanos, i.id LIMIT {limit}",
                    where_.clause
                );
                let mut stmt = conn.prepare_cached(&sql)?;
                let mut rows = stmt.query(rusqlite::params_from_iter(where_.params))?;
                let mut out = Vec::new();
                while let Some(row) = rows.next()? {
                    out.push(query::item_from_row(row)?);
                }
                Ok(out)
            })
            .await
    }

    async fn save_many(&self, items: Vec<MemoryItem>) -> std::result::Result<(), MemoryError> {
        for item in &items {
            item.validate()?;
        }
        if items.is_empty() {
            return Ok(());
        }
        self.db.store_write(WriteOp::Upsert(items)).await
    }

    async fn count(&self, filter: &MemoryFilter) -> std::result::Result<usize, MemoryError> {
        filter.validate()?;
        let where_ = list_filter_sql(filter, self.db.context());
        self.db
            .read(move |conn| {
                let sql = format!(
                    "SELECT count(*) FROM memory_items i WHERE {}",
                    where_.clause
                );
                let n: i64 = conn
                    .prepare_cached(&sql)?
                    .query_row(rusqlite::params_from_iter(where_.params), |row| row.get(0))?;
                Ok(usize::try_from(n).unwrap_or(0))
            })
            .await
    }

    /// Exact BM25F top-k (the scores [`agcore_memory::InMemoryStore`] gives
    /// the same items, higher is better; ties by id) over the impact-ordered
    /// index with the threshold algorithm.
    /// Literal text: the query's distinct keywords (at most 256) are OR-ed; a
    /// query without keywords returns no hits.
    async fn search(
        &self,
        query: &str,
        options: &SearchOptions,
    ) -> std::result::Result<Vec<ScoredItem>, MemoryError> {
        validate_search_options(options)?;
        let terms = capped_query_terms(query);
        if terms.is_empty() {
            return Ok(Vec::new());
        }
        let plan = search::PrunedPlan {
            terms,
            filter: filter_sql(&options.filter),
            limit: options.limit,
            min_score: options.min_score,
            ranking: search::ranking(self.db.context()),
        };
        self.db.read(move |conn| search::pruned(conn, &plan)).await
    }
}
