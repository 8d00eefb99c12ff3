//! `MysqlStore`'s context field beyond the shared suite
//! (`testkit::context`, in `conformance.rs`): concurrent writers of one
//! session keep every field equal to deriving them all again, a database of
//! the previous schema version gets its fields on open, and fields follow a
//! re-index of the words they are made of.
#![cfg(test)]

use crate::support;

use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, InMemoryStore, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::turn;
use agcore_search::KEYWORDS_ANALYZER_ID;
use mysql_async::prelude::Queryable;

const WORDS: [&str; 7] = [
    "violin", "attic", "puppy", "marathon", "lake", "guitar", "cake",
];

/// The stored fields and their statistics: `(doc, context_len,
/// context_terms)` by doc, and `(grouped, context_len)` summed.
type Snapshot = (Vec<(i64, i64, String)>, (i64, i64));

async fn snapshot(db: &MysqlDatabase) -> Snapshot {
    let mut conn = db.pool().get_conn().await.unwrap();
    let fields = conn
        .query("SELECT doc, context_len, context_terms FROM agcore_item_context ORDER BY doc")
        .await
        .unwrap();
    let stats: Option<(i64, i64)> = conn
        .query_first(
            "SELECT CAST(SUM(grouped) AS SIGNED), CAST(SUM(context_len) AS SIGNED)
             FROM agcore_context_stats",
        )
        .await
        .unwrap();
    (fields, stats.unwrap())
}

/// Opens `url` again after forgetting the recorded settings: every field is
/// derived again from the rows.
async fn rederived(url: &str) -> Snapshot {
    let db = MysqlDatabase::open(url).await.unwrap();
    let mut conn = db.pool().get_conn().await.unwrap();
    conn.query_drop("DELETE FROM agcore_store_meta WHERE name = 'context_field'")
        .await
        .unwrap();
    drop(conn);
    snapshot(&MysqlDatabase::open(url).await.unwrap()).await
}

/// Every word ranks in `store` as in an `InMemoryStore` holding its items.
async fn ranks_like_the_reference(store: &dyn MemoryStore) {
    let reference = InMemoryStore::new();
    reference
        .save_many(store.list(&Default::default()).await.unwrap())
        .await
        .unwrap();
    for word in WORDS {
        let options = SearchOptions::top_k(1000);
        let got = store.search(word, &options).await.unwrap();
        let want = reference.search(word, &options).await.unwrap();
        let pairs = |h: &[agcore_memory::ScoredItem]| -> Vec<(String, f64)> {
            h.iter().map(|h| (h.item.id.clone(), h.score)).collect()
        };
        if let Err(why) = agcore_memory_testkit::ranking::same_ranking(&pairs(&got), &pairs(&want))
        {
            panic!("{word}: {why}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_of_one_session_keep_the_fields_exact() {
    let Some(url) = support::url() else { return };
    let (db, url) = support::fresh(&url, "ctxconc", EvictionConfig::none()).await;
    let mut tasks = tokio::task::JoinSet::new();
    for writer in 0..6usize {
        let store = db.store();
        tasks.spawn(async move {
            for n in 0..20usize {
                let seq = i64::try_from(n * 6 + writer).unwrap();
                let text = format!("{} {}", WORDS[(n + writer) % 7], WORDS[(n * 3) % 7]);
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
    ranks_like_the_reference(&db.store()).await;
    let incremental = snapshot(&db).await;
    assert_eq!(incremental.1.0, 96, "6 writers × 16 turns kept");
    assert_eq!(incremental, rederived(&url).await);
    support::drop_databases(&support::url().unwrap(), "ctxconc").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_of_the_previous_version_gets_its_fields_on_open() {
    let Some(base) = support::url() else { return };
    let (plain, url) = support::fresh_with(&base, "ctxupgrade", EvictionConfig::none(), None).await;
    let turns: Vec<MemoryItem> = (0..40)
        .map(|i| {
            let text = format!("{} {}", WORDS[i % 7], WORDS[(i * 3 + 1) % 7]);
            turn(
                &format!("t{i:02}"),
                &format!("s{}", i % 3),
                i64::try_from(i).unwrap(),
                &text,
            )
        })
        .collect();
    plain.store().save_many(turns).await.unwrap();
    // What an earlier release left: schema version 2, no context tables,
    // no document frequencies.
    let mut conn = plain.pool().get_conn().await.unwrap();
    for sql in [
        "DROP TABLE agcore_item_context, agcore_context_stats, agcore_item_groups, agcore_item_terms",
        "DELETE FROM agcore_store_meta WHERE name IN ('context_field', 'df')",
        "UPDATE agcore_schema SET version = 2 WHERE component = 'store'",
    ] {
        conn.query_drop(sql).await.unwrap();
    }
    drop(conn);
    let db = MysqlDatabase::open(&url).await.unwrap();
    assert!(
        db.schema_versions()
            .await
            .unwrap()
            .contains(&("store".to_owned(), 4))
    );
    ranks_like_the_reference(&db.store()).await;
    assert_eq!(snapshot(&db).await.1.0, 40);
    support::drop_databases(&base, "ctxupgrade").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fields_follow_a_re_index_of_their_words() {
    let Some(base) = support::url() else { return };
    let (db, url) = support::fresh(&base, "ctxreindex", EvictionConfig::none()).await;
    db.store()
        .save_many(vec![
            turn("a", "s", 1, "I adopted a puppy"),
            turn("b", "s", 2, "when was that"),
            turn("c", "s", 3, "running every morning"),
        ])
        .await
        .unwrap();
    let before = snapshot(&db).await;
    // Unstemmed words, as an earlier analyzer wrote them, and its record.
    let mut conn = db.pool().get_conn().await.unwrap();
    conn.query_drop(
        "UPDATE agcore_item_context SET context_terms = ' xdeadbeef ', context_len = 1",
    )
    .await
    .unwrap();
    conn.exec_drop(
        "UPDATE agcore_store_meta SET value = ? WHERE name = 'analyzer'",
        (KEYWORDS_ANALYZER_ID,),
    )
    .await
    .unwrap();
    drop(conn);
    let reopened = MysqlDatabase::builder()
        .context_field(Some(ContextField::default()))
        .open(&url)
        .await
        .unwrap();
    assert_eq!(snapshot(&reopened).await, before);
    let hits = reopened
        .store()
        .search("adopting", &SearchOptions::top_k(5))
        .await
        .unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.item.id.as_str()).collect();
    assert_eq!(ids, ["a", "b"], "b through its field, stemmed");
    support::drop_databases(&base, "ctxreindex").await;
}
