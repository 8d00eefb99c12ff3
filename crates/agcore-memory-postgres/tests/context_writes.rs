//! `PostgresStore`'s context field under any order of writes: saves (single
//! and batched, repeated ids in a batch), replacements with other text,
//! session or time, and deletions leave it ranking as `SqliteStore` given
//! the same writes, its index equal to deriving every field again, and lists
//! and counts of one session equal to a store without the field (which
//! scans the metadata) — read through the session index.
#![cfg(test)]

use crate::context_support;
use crate::support;

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::turn;
use context_support::{assert_same, rederived, search, snapshot};
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "marathon", "boston", "puppy", "oscar", "painting", "sunset", "violin", "guitar", "camping",
    "lake", "adopted", "running", "shoes", "birthday", "cake", "记忆", "系统",
];

const QUERIES: &[&str] = &[
    "marathon boston",
    "puppy",
    "violin guitar lake",
    "记忆系统",
    "cake shoes running",
    "painting sunset camping adopted birthday oscar",
];

/// One write: save turn `id` (session, second, words; session 3: none), as
/// part of a batch with the next write when `batch`, or delete it.
#[derive(Debug, Clone)]
enum Write {
    Save {
        id: usize,
        session: usize,
        seq: i64,
        words: Vec<usize>,
        batch: bool,
    },
    Delete(usize),
}

fn writes() -> impl Strategy<Value = Vec<Write>> {
    let save = (
        0usize..24,
        0usize..4,
        0i64..12,
        prop::collection::vec(0..WORDS.len(), 0..6),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(id, session, seq, words, batch)| Write::Save {
            id,
            session,
            seq,
            words,
            batch,
        });
    let delete = (0usize..24).prop_map(Write::Delete);
    prop::collection::vec(prop_oneof![6 => save, 1 => delete], 1..50)
}

fn item(id: usize, session: usize, seq: i64, words: &[usize]) -> MemoryItem {
    let text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
    let id = format!("t{id:02}");
    if session == 3 {
        MemoryItem::new(id, text.join(" ")).with_created_at(agcore_memory_testkit::at(seq))
    } else {
        turn(&id, &format!("s{session}"), seq, &text.join(" "))
    }
}

/// Applies `writes` to `store`: batched saves go in one `save_many`.
async fn apply(store: &dyn MemoryStore, writes: &[Write]) {
    let mut batch: Vec<MemoryItem> = Vec::new();
    for w in writes {
        match w {
            Write::Save {
                id,
                session,
                seq,
                words,
                batch: more,
            } => {
                batch.push(item(*id, *session, *seq, words));
                if !more {
                    store.save_many(std::mem::take(&mut batch)).await.unwrap();
                }
            }
            Write::Delete(id) => {
                store.save_many(std::mem::take(&mut batch)).await.unwrap();
                store.delete(&format!("t{id:02}")).await.unwrap();
            }
        }
    }
    store.save_many(batch).await.unwrap();
}

async fn open(url: &str, schema: &str, field: Option<ContextField>) -> PostgresDatabase {
    PostgresDatabase::builder()
        .schema(schema)
        .pool_size(2)
        .context_field(field)
        .open(url)
        .await
        .unwrap()
}

async fn check(url: &str, writes: &[Write], window: usize) {
    let field = ContextField::default().with_window(window);
    let schema = support::schema_name("ctxprop");
    let db = open(url, &schema, Some(field.clone())).await;
    let store = db.store();
    let lite = SqliteStore::builder()
        .context_field(Some(field.clone()))
        .open_in_memory()
        .await
        .unwrap();
    apply(&store, writes).await;
    apply(&lite, writes).await;
    for &query in QUERIES {
        assert_same(
            &search(&store, query).await,
            &search(&lite, query).await,
            query,
        );
    }
    assert_eq!(
        snapshot(&db).await,
        rederived(url, &schema, Some(field)).await
    );
    // Lists and counts of a session read the session index; a store
    // without the field scans the metadata: the same items in one order.
    let plain = open(url, &support::schema_name("ctxprop"), None)
        .await
        .store();
    apply(&plain, writes).await;
    for session in 0..4 {
        let filter = MemoryFilter::default()
            .metadata_eq("session", serde_json::json!(format!("s{session}")));
        assert_eq!(
            store.list(&filter).await.unwrap(),
            plain.list(&filter).await.unwrap()
        );
        let limited = filter.clone().limit(2);
        assert_eq!(
            store.list(&limited).await.unwrap(),
            plain.list(&limited).await.unwrap()
        );
        assert_eq!(
            store.count(&filter).await.unwrap(),
            plain.count(&filter).await.unwrap()
        );
    }
    support::drop_schemas(url, "ctxprop").await;
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Whatever the order of saves, replacements (other text, session or
    /// time) and deletions, the store scores as `SqliteStore` given the same
    /// writes, and its index is what deriving every field again gives.
    #[test]
    fn store_ranks_like_sqlite_after_any_writes(writes in writes(), window in 1usize..3) {
        let Some(url) = support::url() else { return Ok(()) };
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(check(&url, &writes, window));
    }
}

/// Index scans of `agcore_items_group` in `schema` so far (the server's
/// statistics, flushed by backends within about a second).
async fn group_scans(db: &PostgresDatabase, schema: &str) -> i64 {
    let client = db.pool().get().await.unwrap();
    client
        .batch_execute("SELECT pg_stat_clear_snapshot()")
        .await
        .unwrap();
    client
        .query_one(
            "SELECT COALESCE(sum(idx_scan), 0)::int8 FROM pg_stat_user_indexes
             WHERE schemaname = $1 AND indexrelname = 'agcore_items_group'",
            &[&schema],
        )
        .await
        .unwrap()
        .get(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_listed_and_counted_through_its_index() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxlist");
    let db = open(&url, &schema, Some(ContextField::default())).await;
    let store = db.store();
    let items: Vec<MemoryItem> = (0..2_000)
        .map(|n| {
            turn(
                &format!("m{n:04}"),
                &format!("s{}", n % 100),
                n,
                "a turn of talk",
            )
        })
        .collect();
    store.save_many(items.clone()).await.unwrap();
    let filter = MemoryFilter::default().metadata_eq("session", serde_json::json!("s7"));
    let before = group_scans(&db, &schema).await;
    let listed = store.list(&filter).await.unwrap();
    let want: Vec<MemoryItem> = items
        .iter()
        .filter(|i| filter.matches(i))
        .cloned()
        .collect();
    assert_eq!(listed, want);
    assert_eq!(store.count(&filter).await.unwrap(), 20);
    let numeric = MemoryFilter::default().metadata_eq("session", serde_json::json!(7));
    assert!(
        store.list(&numeric).await.unwrap().is_empty(),
        "7 is not \"7\""
    );
    let mut scans = before;
    for _ in 0..50 {
        scans = group_scans(&db, &schema).await;
        if scans >= before + 3 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert!(
        scans >= before + 3,
        "the session index was not read: {before} → {scans}"
    );
    support::drop_schemas(&url, "ctxlist").await;
}
