//! Re-indexing with the stemming analyzer: a schema whose postings were
//! built with plain keywords (postings, lengths and the recorded analyzer
//! rewritten in the old form by raw SQL) is re-tokenised on open, once, also
//! when several processes open it at once.
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_postgres::PostgresDatabase;
use agcore_search::{ANALYZER_ID, KEYWORDS_ANALYZER_ID, extract_keywords, index_terms};
use deadpool_postgres::Client;

const ITEMS: &[(&str, &str)] = &[
    ("pet", "I adopted a puppy last spring"),
    ("run", "She runs every morning"),
    ("tea", "用户喜欢喝绿茶"),
];

fn tf(tokens: Vec<String>) -> (Vec<String>, Vec<i32>) {
    let mut map = std::collections::BTreeMap::new();
    for t in tokens {
        *map.entry(t).or_insert(0) += 1;
    }
    map.into_iter().unzip()
}

/// Rewrites postings, lengths and statistics as plain keywords produced
/// them and records the old analyzer.
async fn make_old(client: &Client) {
    client
        .batch_execute("DELETE FROM agcore_postings; DELETE FROM agcore_lt_postings;")
        .await
        .unwrap();
    let mut total = 0_i64;
    for row in client
        .query("SELECT doc, content FROM agcore_items", &[])
        .await
        .unwrap()
    {
        let (doc, content): (i64, Vec<u8>) = (row.get(0), row.get(1));
        let tokens = extract_keywords(std::str::from_utf8(&content).unwrap());
        let len = i32::try_from(tokens.len()).unwrap();
        total += i64::from(len);
        let (terms, tfs) = tf(tokens);
        client
            .execute(
                "UPDATE agcore_items SET len = $2 WHERE doc = $1",
                &[&doc, &len],
            )
            .await
            .unwrap();
        client
            .execute(
                "INSERT INTO agcore_postings (term, doc, tf, len)
                 SELECT t, $1, f, $2 FROM unnest($3::text[], $4::int4[]) AS u(t, f)",
                &[&doc, &len, &terms, &tfs],
            )
            .await
            .unwrap();
    }
    client
        .execute(
            "UPDATE agcore_item_stats SET total_len = CASE WHEN shard = 0 THEN $1::int8 ELSE 0 END",
            &[&total],
        )
        .await
        .unwrap();
    let mut totals = std::collections::BTreeMap::<i64, i64>::new();
    for row in client
        .query(
            "SELECT id, scope_id, name || ' ' || content || ' ' || description FROM agcore_lt_entries",
            &[],
        )
        .await
        .unwrap()
    {
        let (id, scope, text): (i64, i64, String) = (row.get(0), row.get(1), row.get(2));
        let tokens = extract_keywords(&text);
        let len = i32::try_from(tokens.len()).unwrap();
        *totals.entry(scope).or_default() += i64::from(len);
        let (terms, tfs) = tf(tokens);
        client
            .execute("UPDATE agcore_lt_entries SET len = $2 WHERE id = $1", &[&id, &len])
            .await
            .unwrap();
        client
            .execute(
                "INSERT INTO agcore_lt_postings (scope_id, term, entry_id, tf)
                 SELECT $1, t, $2, f FROM unnest($3::text[], $4::int4[]) AS u(t, f)",
                &[&scope, &id, &terms, &tfs],
            )
            .await
            .unwrap();
    }
    for (scope, total) in totals {
        client
            .execute(
                "UPDATE agcore_lt_scopes SET total_len = $2 WHERE id = $1",
                &[&scope, &total],
            )
            .await
            .unwrap();
    }
    for table in ["agcore_store_meta", "agcore_lt_meta"] {
        client
            .execute(
                &format!("UPDATE {table} SET value = $1 WHERE key = 'analyzer'"),
                &[&KEYWORDS_ANALYZER_ID],
            )
            .await
            .unwrap();
    }
}

async fn analyzers(client: &Client) -> Vec<String> {
    let mut out = Vec::new();
    for table in ["agcore_store_meta", "agcore_lt_meta"] {
        let row = client
            .query_one(
                &format!("SELECT value FROM {table} WHERE key = 'analyzer'"),
                &[],
            )
            .await
            .unwrap();
        out.push(row.get(0));
    }
    out
}

/// (postings, total length) of the store, from the tables.
async fn store_index(client: &Client) -> (Vec<(String, i64)>, i64) {
    let postings = client
        .query(
            "SELECT term, doc FROM agcore_postings ORDER BY term, doc",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let total: i64 = client
        .query_one("SELECT sum(total_len)::int8 FROM agcore_item_stats", &[])
        .await
        .unwrap()
        .get(0);
    (postings, total)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postings_built_with_keywords_are_re_tokenised_on_open() {
    let Some(url) = support::url() else { return };
    let (db, schema) = support::fresh(&url, "reindex", EvictionConfig::none()).await;
    for (id, text) in ITEMS {
        db.store().save(MemoryItem::new(*id, *text)).await.unwrap();
    }
    let memory = LongTermMemory::new(db.long_term());
    let m = memory.scope("agent", "u1").unwrap();
    for (name, text) in ITEMS {
        m.save(NewMemory::new(MemoryType::User, *name, *text))
            .await
            .unwrap();
    }
    let client = db.pool().get().await.unwrap();
    assert_eq!(analyzers(&client).await, [ANALYZER_ID, ANALYZER_ID]);
    let fresh_index = store_index(&client).await;
    make_old(&client).await;
    assert_ne!(store_index(&client).await, fresh_index);

    // Four opens at once: one re-index, the same index as fresh writes give.
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let (url, schema) = (url.clone(), schema.clone());
            tokio::spawn(async move {
                PostgresDatabase::builder()
                    .schema(schema)
                    .pool_size(2)
                    .open(&url)
                    .await
            })
        })
        .collect();
    let mut dbs = Vec::new();
    for open in opens {
        dbs.push(open.await.unwrap().unwrap());
    }
    assert_eq!(analyzers(&client).await, [ANALYZER_ID, ANALYZER_ID]);
    assert_eq!(store_index(&client).await, fresh_index);
    let pet: Vec<String> = client
        .query(
            "SELECT p.term FROM agcore_postings p JOIN agcore_items i ON i.doc = p.doc
             WHERE i.id = 'pet' ORDER BY p.term",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    let mut want = index_terms(ITEMS[0].1);
    want.sort();
    assert_eq!(pet, want);

    let reopened = dbs.pop().unwrap();
    let store = reopened.store();
    let memory = LongTermMemory::new(reopened.long_term());
    let m = memory.scope("agent", "u1").unwrap();
    for (query, want) in [
        ("adopting puppies", "pet"),
        ("running", "run"),
        ("绿茶", "tea"),
    ] {
        let hits = store.search(query, &SearchOptions::top_k(5)).await.unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.item.id.as_str()).collect();
        assert_eq!(ids, [want], "{query}");
        let hits = m.search(query, 5).await.unwrap();
        let names: Vec<&str> = hits.iter().map(|h| h.entry.name.as_str()).collect();
        assert_eq!(names, [want], "{query}");
    }
    drop(client);
    support::drop_schemas(&url, "reindex").await;
}
