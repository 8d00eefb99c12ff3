//! `PostgresStore`'s context field (`ContextField`, BM25F over neighbouring
//! turns): on the same items it ranks and scores as `SqliteStore` and
//! `InMemoryStore` do, the field follows saves, replacements, session moves,
//! deletions, eviction and concurrent writers in any order (and equals what
//! deriving every field again gives), and `context_field(None)` ranks as
//! plain BM25. Settings and upgrades: `context_settings.rs`.
#![cfg(test)]

use crate::support;

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, InMemoryStore, MemoryItem, MemoryStore, ScoredItem};
use agcore_memory_postgres::{PostgresDatabase, PostgresStore};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::turn;

use crate::context_support;

use context_support::{assert_same, conversation, ids, search, snapshot};

async fn open(url: &str, schema: &str, field: Option<ContextField>) -> PostgresDatabase {
    PostgresDatabase::builder()
        .schema(schema)
        .pool_size(2)
        .context_field(field)
        .open(url)
        .await
        .unwrap()
}

async fn fresh(url: &str, tag: &str, field: Option<ContextField>) -> PostgresStore {
    open(url, &support::schema_name(tag), field).await.store()
}

async fn sqlite(field: Option<ContextField>) -> SqliteStore {
    SqliteStore::builder()
        .context_field(field)
        .open_in_memory()
        .await
        .unwrap()
}

/// `store` ranks `queries` as `reference` does (hits, order, scores).
async fn assert_ranks_like(store: &dyn MemoryStore, reference: &dyn MemoryStore, queries: &[&str]) {
    for &query in queries {
        assert_same(
            &search(store, query).await,
            &search(reference, query).await,
            query,
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_is_found_through_the_question_before_it() {
    let Some(url) = support::url() else { return };
    let store = fresh(&url, "ctxreply", Some(ContextField::default())).await;
    let lite = sqlite(Some(ContextField::default())).await;
    let reference = InMemoryStore::new();
    for s in [&store as &dyn MemoryStore, &lite, &reference] {
        s.save_many(conversation()).await.unwrap();
    }
    let hits = search(&store, "When did she run the marathon?").await;
    assert_eq!(ids(&hits), ["a1", "note", "a2"], "a2 through its field");
    assert!(hits[2].score < hits[1].score);
    let queries = ["When did she run the marathon?", "puppy legs", "oscar"];
    assert_ranks_like(&store, &lite, &queries).await;
    assert_ranks_like(&store, &reference, &queries).await;

    let plain = fresh(&url, "ctxreply", None).await;
    plain.save_many(conversation()).await.unwrap();
    assert_eq!(ids(&search(&plain, "marathon").await), ["a1", "note"]);
    let lite = sqlite(None).await;
    lite.save_many(conversation()).await.unwrap();
    assert_ranks_like(&plain, &lite, &["marathon", "saturday puppy"]).await;
    support::drop_schemas(&url, "ctxreply").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn items_without_a_session_rank_as_plain_bm25() {
    let Some(url) = support::url() else { return };
    let with = fresh(&url, "ctxplain", Some(ContextField::default())).await;
    let without = fresh(&url, "ctxplain", None).await;
    let reference = InMemoryStore::new().with_context_field(None);
    let items: Vec<MemoryItem> = ["red apples", "green apples and pears", "pears", "apple pie"]
        .iter()
        .enumerate()
        .map(|(i, t)| MemoryItem::new(format!("n{i}"), *t))
        .collect();
    for store in [&with as &dyn MemoryStore, &without, &reference] {
        store.save_many(items.clone()).await.unwrap();
    }
    for q in ["apples", "pears apple", "green"] {
        let (a, b) = (search(&with, q).await, search(&without, q).await);
        let scores = |h: &[ScoredItem]| h.iter().map(|h| h.score).collect::<Vec<_>>();
        assert_eq!(ids(&a), ids(&b));
        assert_eq!(scores(&a), scores(&b), "bit for bit");
        assert_same(&a, &search(&reference, q).await, q);
    }
    support::drop_schemas(&url, "ctxplain").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_field_follows_deletions_replacements_and_moves() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxfollow");
    let db = open(&url, &schema, Some(ContextField::default())).await;
    let store = db.store();
    store
        .save_many(vec![
            turn("t1", "s", 1, "where is the violin"),
            turn("t2", "s", 2, "in the attic"),
            turn("t3", "s", 3, "thanks a lot"),
        ])
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "violin").await), ["t1", "t2"]);
    store.delete("t1").await.unwrap();
    assert!(search(&store, "violin").await.is_empty(), "t2 lost it");
    store
        .save(turn("t1", "s", 1, "where is the cello"))
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "cello").await), ["t1", "t2"]);
    assert!(search(&store, "violin").await.is_empty());
    // Moving t3 to another session takes it out of t2's context.
    assert_eq!(ids(&search(&store, "thanks").await), ["t3", "t2"]);
    store
        .save(turn("t3", "other", 3, "thanks a lot"))
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "thanks").await), ["t3"]);
    // A later time puts t1 after t2: t1's neighbour is still t2 only.
    store
        .save(turn("t1", "s", 9, "where is the cello"))
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "attic").await), ["t2", "t1"]);
    let incremental = snapshot(&db).await;
    assert_eq!(
        incremental,
        context_support::rederived(&url, &schema, Some(ContextField::default())).await
    );
    support::drop_schemas(&url, "ctxfollow").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chinese_turns_get_context_as_character_bigrams() {
    let Some(url) = support::url() else { return };
    let store = fresh(&url, "ctxzh", Some(ContextField::default())).await;
    store
        .save_many(vec![
            turn("z1", "会话", 1, "你去过长城吗"),
            turn("z2", "会话", 2, "去年夏天去过"),
            turn("z3", "别的", 3, "今天下雨"),
        ])
        .await
        .unwrap();
    assert_eq!(ids(&search(&store, "长城").await), ["z1", "z2"]);
    assert_eq!(ids(&search(&store, "夏天").await), ["z2", "z1"]);
    support::drop_schemas(&url, "ctxzh").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eviction_refreshes_the_neighbours() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxevict");
    let db = PostgresDatabase::builder()
        .schema(schema.clone())
        .pool_size(2)
        .eviction(EvictionConfig::capacity(2, 1))
        .open(&url)
        .await
        .unwrap();
    let store = db.store();
    for (n, text) in ["violin lessons", "in the attic", "thanks"]
        .iter()
        .enumerate()
    {
        store
            .save(turn(&format!("t{n}"), "s", n as i64, text))
            .await
            .unwrap();
    }
    assert!(search(&store, "violin").await.is_empty(), "t0 evicted");
    assert_eq!(ids(&search(&store, "attic").await), ["t1", "t2"]);
    assert_eq!(
        snapshot(&db).await,
        context_support::rederived(&url, &schema, Some(ContextField::default())).await
    );
    support::drop_schemas(&url, "ctxevict").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_of_one_session_keep_the_fields_exact() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxconc");
    let db = PostgresDatabase::builder()
        .schema(schema.clone())
        .pool_size(8)
        .open(&url)
        .await
        .unwrap();
    let words = [
        "violin", "attic", "puppy", "marathon", "lake", "guitar", "cake",
    ];
    let mut tasks = tokio::task::JoinSet::new();
    for writer in 0..6usize {
        let store = db.store();
        tasks.spawn(async move {
            for n in 0..25usize {
                let seq = (n * 6 + writer) as i64;
                let text = format!("{} {}", words[(n + writer) % 7], words[(n * 3) % 7]);
                let item = turn(
                    &format!("w{writer}:{n}"),
                    &format!("s{}", n % 2),
                    seq,
                    &text,
                );
                if n % 5 == 4 {
                    store.save_many(vec![item]).await.unwrap();
                    store.delete(&format!("w{writer}:{}", n - 2)).await.unwrap();
                } else {
                    store.save(item).await.unwrap();
                }
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    let store = db.store();
    let lite = sqlite(Some(ContextField::default())).await;
    lite.save_many(store.list(&Default::default()).await.unwrap())
        .await
        .unwrap();
    assert_ranks_like(&store, &lite, &words).await;
    assert_eq!(
        snapshot(&db).await,
        context_support::rederived(&url, &schema, Some(ContextField::default())).await
    );
    support::drop_schemas(&url, "ctxconc").await;
}
