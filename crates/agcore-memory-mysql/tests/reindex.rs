//! Re-indexing with the stemming analyzer: a database whose `terms` columns
//! were built with plain keywords (columns, lengths and the recorded
//! analyzer rewritten in the old form by raw SQL) is re-tokenised on open,
//! once, also when several processes open it at once.
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory};
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_mysql::MysqlDatabase;
use agcore_search::{ANALYZER_ID, KEYWORDS_ANALYZER_ID, extract_keywords, index_terms};
use mysql_async::prelude::Queryable;

const ITEMS: &[(&str, &str)] = &[
    ("pet", "I adopted a puppy last spring"),
    ("run", "She runs every morning"),
    ("tea", "用户喜欢喝绿茶"),
];

/// A `terms` column as the backend writes it: ` <prefix>x<hex of the token> ` per token.
fn column(prefix: &str, tokens: &[String]) -> String {
    tokens
        .iter()
        .map(|t| {
            let hex: String = t.bytes().map(|b| format!("{b:02x}")).collect();
            format!(" {prefix}x{hex} ")
        })
        .collect()
}

/// Rewrites `terms`, lengths and total lengths as plain keywords produced
/// them and records the old analyzer.
async fn make_old(conn: &mut mysql_async::Conn) {
    let items: Vec<(i64, Vec<u8>)> = conn
        .query("SELECT doc, content FROM agcore_items")
        .await
        .unwrap();
    let mut total = 0_i64;
    for (doc, content) in items {
        let tokens = extract_keywords(std::str::from_utf8(&content).unwrap());
        total += i64::try_from(tokens.len()).unwrap();
        conn.exec_drop(
            "UPDATE agcore_items SET terms = ?, len = ? WHERE doc = ?",
            (column("", &tokens), tokens.len(), doc),
        )
        .await
        .unwrap();
    }
    conn.exec_drop(
        "UPDATE agcore_item_stats SET total_len = IF(shard = 0, ?, 0)",
        (total,),
    )
    .await
    .unwrap();
    let entries: Vec<(i64, i64, Vec<u8>)> = conn
        .query("SELECT id, scope_id, CONCAT(name, ' ', content, ' ', description) FROM agcore_lt_entries")
        .await
        .unwrap();
    for (id, scope, text) in entries {
        let tokens = extract_keywords(std::str::from_utf8(&text).unwrap());
        conn.exec_drop(
            "UPDATE agcore_lt_entries SET terms = ?, len = ? WHERE id = ?",
            (column(&format!("s{scope}"), &tokens), tokens.len(), id),
        )
        .await
        .unwrap();
    }
    conn.query_drop(
        "UPDATE agcore_lt_scopes s SET total_len = \
         (SELECT COALESCE(SUM(len), 0) FROM agcore_lt_entries e WHERE e.scope_id = s.id)",
    )
    .await
    .unwrap();
    for table in ["agcore_store_meta", "agcore_lt_meta"] {
        conn.exec_drop(
            format!("UPDATE {table} SET value = ? WHERE name = 'analyzer'"),
            (KEYWORDS_ANALYZER_ID,),
        )
        .await
        .unwrap();
    }
}

/// Recorded analyzers, the store's `pet` terms and total length.
async fn state(conn: &mut mysql_async::Conn) -> (Vec<String>, String, i64) {
    let mut analyzers = Vec::new();
    for table in ["agcore_store_meta", "agcore_lt_meta"] {
        let value: Option<String> = conn
            .query_first(format!("SELECT value FROM {table} WHERE name = 'analyzer'"))
            .await
            .unwrap();
        analyzers.push(value.unwrap());
    }
    let terms: Option<String> = conn
        .query_first("SELECT terms FROM agcore_items WHERE id = 'pet'")
        .await
        .unwrap();
    let total: Option<i64> = conn
        .query_first("SELECT CAST(SUM(total_len) AS SIGNED) FROM agcore_item_stats")
        .await
        .unwrap();
    (analyzers, terms.unwrap(), total.unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terms_built_with_keywords_are_re_tokenised_on_open() {
    let Some(base) = support::url() else { return };
    let (db, url) = support::fresh(&base, "reindex", EvictionConfig::none()).await;
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
    let mut conn = db.pool().get_conn().await.unwrap();
    let fresh = state(&mut conn).await;
    assert_eq!(fresh.0, [ANALYZER_ID, ANALYZER_ID]);
    assert_eq!(fresh.1, column("", &index_terms(ITEMS[0].1)));
    make_old(&mut conn).await;
    let old = state(&mut conn).await;
    assert_eq!(old.1, column("", &extract_keywords(ITEMS[0].1)));
    assert_ne!(old, fresh);

    // Four opens at once: one re-index, the same index as fresh writes give.
    let opens: Vec<_> = (0..4)
        .map(|_| {
            let url = url.clone();
            tokio::spawn(async move { MysqlDatabase::builder().pool_size(2).open(&url).await })
        })
        .collect();
    let mut dbs = Vec::new();
    for open in opens {
        dbs.push(open.await.unwrap().unwrap());
    }
    assert_eq!(state(&mut conn).await, fresh);
    let tea: Option<String> = conn
        .query_first("SELECT terms FROM agcore_items WHERE id = 'tea'")
        .await
        .unwrap();
    // Chinese text is re-indexed too: its bigrams and (since the analyzer
    // indexes them) its characters.
    assert_eq!(tea.unwrap(), column("", &index_terms(ITEMS[2].1)));

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
    drop(conn);
    support::drop_databases(&base, "reindex").await;
}
