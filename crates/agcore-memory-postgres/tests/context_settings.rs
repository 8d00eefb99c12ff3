//! `PostgresStore`'s context field across opens: reopening with other
//! settings derives the fields again (none, another key and window; a
//! weight alone changes only the scores), and a schema of the previous
//! version (2) is upgraded with its rows' fields derived.
#![cfg(test)]

use crate::context_support;
use crate::support;

use agcore_memory::retriever::ContextField;
use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_sqlite::SqliteStore;
use context_support::{assert_same, conversation, ids, rederived, search, snapshot};

async fn open(url: &str, schema: &str, field: Option<ContextField>) -> PostgresDatabase {
    PostgresDatabase::builder()
        .schema(schema)
        .pool_size(2)
        .context_field(field)
        .open(url)
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

async fn sqlite(field: Option<ContextField>) -> SqliteStore {
    SqliteStore::builder()
        .context_field(field)
        .open_in_memory()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reopening_with_other_settings_derives_the_fields_again() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxreopen");
    let store = open(&url, &schema, Some(ContextField::default()))
        .await
        .store();
    store.save_many(conversation()).await.unwrap();
    assert_eq!(ids(&search(&store, "marathon").await), ["a1", "note", "a2"]);
    let switched = open(&url, &schema, None).await.store();
    assert_eq!(ids(&search(&switched, "marathon").await), ["a1", "note"]);
    let lite = sqlite(None).await;
    lite.save_many(conversation()).await.unwrap();
    assert_ranks_like(&switched, &lite, &["marathon", "puppy legs"]).await;
    // Another key and a wider window: the items are grouped again.
    let field = ContextField::default()
        .with_group_key("topic")
        .with_window(2);
    let items: Vec<MemoryItem> = conversation()
        .into_iter()
        .map(|i| i.with_metadata(serde_json::json!({ "topic": "t" })))
        .collect();
    let reference = InMemoryStore::new().with_context_field(Some(field.clone()));
    reference.save_many(items.clone()).await.unwrap();
    let regrouped = open(&url, &schema, Some(field)).await.store();
    regrouped.save_many(items).await.unwrap();
    assert_ranks_like(&regrouped, &reference, &["marathon", "oscar saturday"]).await;
    // Only the weight differs: nothing to derive, scores follow the weight.
    let light = ContextField::default()
        .with_group_key("topic")
        .with_window(2)
        .with_weight(0.2);
    let reference = InMemoryStore::new().with_context_field(Some(light.clone()));
    reference
        .save_many(regrouped.list(&Default::default()).await.unwrap())
        .await
        .unwrap();
    let lighter = open(&url, &schema, Some(light)).await.store();
    assert_ranks_like(&lighter, &reference, &["marathon", "oscar saturday"]).await;
    support::drop_schemas(&url, "ctxreopen").await;
}

/// A schema of the previous version (store version 2: no sequence, field
/// or statistics columns) holding turns opens, is upgraded, and ranks them
/// with their context fields; nothing is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_2_schema_is_upgraded_with_context_fields() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxupgrade");
    let db = open(&url, &schema, None).await;
    db.store().save_many(conversation()).await.unwrap();
    let client = db.pool().get().await.unwrap();
    client
        .batch_execute(
            "DROP INDEX agcore_items_group;
             ALTER TABLE agcore_items DROP COLUMN grp, DROP COLUMN context_len;
             DELETE FROM agcore_postings WHERE tf = 0;
             ALTER TABLE agcore_postings DROP CONSTRAINT agcore_postings_pkey,
                 DROP COLUMN ctf, DROP COLUMN clen;
             ALTER TABLE agcore_postings ADD PRIMARY KEY (term, doc) INCLUDE (tf, len);
             ALTER TABLE agcore_item_stats DROP COLUMN grouped, DROP COLUMN context_len;
             DELETE FROM agcore_store_meta WHERE key = 'context_field';
             UPDATE agcore_schema SET version = 2 WHERE component = 'store';",
        )
        .await
        .unwrap();
    drop(client);
    let upgraded = open(&url, &schema, Some(ContextField::default())).await;
    let versions = upgraded.schema_versions().await.unwrap();
    assert!(versions.contains(&("store".to_owned(), 3)), "{versions:?}");
    let store = upgraded.store();
    assert_eq!(store.count(&Default::default()).await.unwrap(), 4);
    let reference = InMemoryStore::new();
    reference.save_many(conversation()).await.unwrap();
    assert_ranks_like(
        &store,
        &reference,
        &["marathon", "When did she run the marathon?", "puppy legs"],
    )
    .await;
    assert_eq!(
        snapshot(&upgraded).await,
        rederived(&url, &schema, Some(ContextField::default())).await
    );
    support::drop_schemas(&url, "ctxupgrade").await;
}

/// Re-indexing with the store analyzer (a schema whose recorded analyzer is
/// an older one) rebuilds the postings from the own text; the fields are
/// derived again in the same open.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reindex_derives_the_fields_again() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ctxreindex");
    let db = open(&url, &schema, Some(ContextField::default())).await;
    db.store().save_many(conversation()).await.unwrap();
    let before = snapshot(&db).await;
    db.pool()
        .get()
        .await
        .unwrap()
        .execute(
            "UPDATE agcore_store_meta SET value = 'keywords-v1' WHERE key = 'analyzer'",
            &[],
        )
        .await
        .unwrap();
    let reopened = open(&url, &schema, Some(ContextField::default())).await;
    assert_eq!(snapshot(&reopened).await, before);
    let reference = InMemoryStore::new();
    reference.save_many(conversation()).await.unwrap();
    assert_ranks_like(
        &reopened.store(),
        &reference,
        &["When did she run the marathon?", "puppy legs"],
    )
    .await;
    support::drop_schemas(&url, "ctxreindex").await;
}
