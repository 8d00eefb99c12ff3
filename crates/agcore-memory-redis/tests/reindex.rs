//! Re-indexing with the stemming analyzer: a prefix whose postings were
//! built with plain keywords by an earlier release (postings, index entries
//! in that release's layout, length statistics and the recorded analyzer
//! rewritten in the old form by raw commands) is re-tokenised on open, also
//! when several clients open it at once.
#![cfg(test)]

use crate::support;

use std::collections::BTreeMap;

use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_redis::RedisStore;
use agcore_search::{ANALYZER_ID, KEYWORDS_ANALYZER_ID, extract_keywords, index_terms};
use redis::Commands;

const ITEMS: &[(&str, &str)] = &[
    ("pet", "I adopted a puppy last spring"),
    ("run", "She runs every morning"),
    ("tea", "用户喜欢喝绿茶"),
];

/// Replaces an item's postings by those of `tokens`, as the script writes them.
fn write_postings(conn: &mut redis::Connection, prefix: &str, id: &str, tokens: &[String]) {
    let key = format!("{prefix}:doc:{id}");
    let shadow: String = conn.get(&key).unwrap();
    let mut d: serde_json::Value = serde_json::from_str(&shadow).unwrap();
    let tf = d["tf"].as_object().cloned().unwrap_or_default();
    for t in tf.keys() {
        let _: () = conn.hdel(format!("{prefix}:t:{t}"), id).unwrap();
    }
    let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
    for t in tokens {
        *tf.entry(t).or_insert(0) += 1;
    }
    for (t, n) in &tf {
        let _: () = conn
            .hset(
                format!("{prefix}:t:{t}"),
                id,
                format!("{n}:{}", tokens.len()),
            )
            .unwrap();
    }
    let old_len = d["len"].as_i64().unwrap();
    let new_len = i64::try_from(tokens.len()).unwrap();
    let _: () = conn
        .hincr(format!("{prefix}:stats"), "len", new_len - old_len)
        .unwrap();
    d["len"] = new_len.into();
    // The earlier release's entry: a list of terms, no frequencies.
    d["terms"] = tf.keys().copied().collect::<Vec<_>>().into();
    d.as_object_mut().unwrap().remove("tf");
    let _: () = conn.set(&key, d.to_string()).unwrap();
}

/// The postings of `term` (id → `tf:len`).
fn postings(conn: &mut redis::Connection, prefix: &str, term: &str) -> BTreeMap<String, String> {
    conn.hgetall(format!("{prefix}:t:{term}")).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postings_built_with_keywords_are_re_tokenised_on_open() {
    let Some(url) = support::url() else { return };
    let store = support::fresh(&url, "reindex", EvictionConfig::none()).await;
    let prefix = store.prefix().to_owned();
    for (id, text) in ITEMS {
        store.save(MemoryItem::new(*id, *text)).await.unwrap();
    }
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_connection()
        .unwrap();
    let meta = format!("{prefix}:meta");
    let recorded: Option<String> = conn.hget(&meta, "analyzer").unwrap();
    assert_eq!(recorded.as_deref(), Some(ANALYZER_ID));
    let stats: BTreeMap<String, i64> = conn.hgetall(format!("{prefix}:stats")).unwrap();
    for (id, text) in ITEMS {
        write_postings(&mut conn, &prefix, id, &extract_keywords(text));
    }
    let _: () = conn.hset(&meta, "analyzer", KEYWORDS_ANALYZER_ID).unwrap();
    let _: () = conn.hdel(&meta, "context_field").unwrap();
    assert!(postings(&mut conn, &prefix, "adopt").is_empty());
    assert_eq!(postings(&mut conn, &prefix, "adopted").len(), 1);
    assert!(
        store
            .search("adopting puppies", &SearchOptions::top_k(5))
            .await
            .unwrap()
            .is_empty()
    );

    let opens: Vec<_> = (0..4)
        .map(|_| {
            let (url, prefix) = (url.clone(), prefix.clone());
            tokio::spawn(async move { RedisStore::builder().prefix(prefix).open(&url).await })
        })
        .collect();
    let mut stores = Vec::new();
    for open in opens {
        stores.push(open.await.unwrap().unwrap());
    }
    let recorded: Option<String> = conn.hget(&meta, "analyzer").unwrap();
    assert_eq!(recorded.as_deref(), Some(ANALYZER_ID));
    assert!(postings(&mut conn, &prefix, "adopted").is_empty());
    let stemmed = index_terms(ITEMS[0].1);
    assert_eq!(
        postings(&mut conn, &prefix, &stemmed[0]),
        BTreeMap::from([("pet".to_owned(), format!("1:{}", stemmed.len()))])
    );
    let after: BTreeMap<String, i64> = conn.hgetall(format!("{prefix}:stats")).unwrap();
    assert_eq!(after, stats);

    let reopened = stores.pop().unwrap();
    for (query, want) in [
        ("adopting puppies", "pet"),
        ("running", "run"),
        ("绿茶", "tea"),
    ] {
        let hits = reopened
            .search(query, &SearchOptions::top_k(5))
            .await
            .unwrap();
        let ids: Vec<&str> = hits.iter().map(|h| h.item.id.as_str()).collect();
        assert_eq!(ids, [want], "{query}");
    }
    support::drop_keys(&url, "reindex");
}

/// Hits of `query` as (id, score).
async fn ranked(store: &dyn MemoryStore, query: &str) -> Vec<(String, f64)> {
    store
        .search(query, &SearchOptions::top_k(50))
        .await
        .unwrap()
        .into_iter()
        .map(|h| (h.item.id, h.score))
        .collect()
}

fn assert_close(got: &[(String, f64)], want: &[(String, f64)], what: &str) {
    if let Err(why) = agcore_memory_testkit::ranking::same_ranking(got, want) {
        panic!("{what}: {why}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn opening_with_other_context_settings_derives_every_field_again() {
    use agcore_memory::InMemoryStore;
    use agcore_memory::retriever::ContextField;
    use agcore_memory_testkit::turn;

    let Some(url) = support::url() else { return };
    let turns: Vec<MemoryItem> = (0..700)
        .map(|i| {
            let words = ["violin", "attic", "puppy", "garden", "长城", "lake"];
            let text = format!("{} {}", words[i % 6], words[(i * 5 + 1) % 6]);
            turn(&format!("t{i:03}"), &format!("s{}", i % 9), i as i64, &text)
        })
        .collect();
    let plain = support::fresh_with(&url, "ctxsettings", EvictionConfig::none(), None).await;
    plain.save_many(turns.clone()).await.unwrap();
    let prefix = plain.prefix().to_owned();
    let reopen = |field: Option<ContextField>| {
        let (url, prefix) = (url.clone(), prefix.clone());
        async move {
            RedisStore::builder()
                .prefix(prefix)
                .context_field(field)
                .open(&url)
                .await
                .unwrap()
        }
    };
    for field in [
        Some(ContextField::default()),
        Some(ContextField::default().with_window(2)),
        None,
    ] {
        // More than one rebuild batch (500 items), from concurrent openers.
        let (a, b) = tokio::join!(reopen(field.clone()), reopen(field.clone()));
        drop(a);
        let reference = InMemoryStore::new().with_context_field(field.clone());
        reference.save_many(turns.clone()).await.unwrap();
        for query in ["violin", "长城 garden", "puppy lake attic"] {
            assert_close(
                &ranked(&b, query).await,
                &ranked(&reference, query).await,
                &format!("{field:?} {query}"),
            );
        }
    }
    support::drop_keys(&url, "ctxsettings");
}
