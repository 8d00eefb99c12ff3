//! Long-term memory's kept document frequencies and the pruned search that
//! reads them: the frequencies follow saves, content updates and deletes,
//! are counted afresh on the upgrade that adds them, and the pruned top k
//! equals an exhaustive BM25 ranking computed here from the entries.
#![cfg(test)]

use std::collections::{BTreeMap, HashSet};

use agcore_memory::EvictionConfig;
use agcore_memory::long_term::{
    ArchivedFilter, HistoryReason, ListRequest, LongTermBackend, MemoryEntry, MemoryScope,
    MemoryType, MemoryUpdate, NewMemory, SearchRequest, WeightRules,
};
use agcore_memory_mysql::{MysqlDatabase, MysqlLongTerm};
use agcore_memory_testkit::corpus::Corpus;
use agcore_search::{Bm25, DEFAULT_B, DEFAULT_K1, MAX_TF_PART, index_terms, unique_index_terms};
use chrono::Utc;
use mysql_async::prelude::Queryable;

use crate::support;

/// Seeds `scope` with `n` corpus memories of every type, archives every
/// seventh, rewrites every eleventh and deletes every thirteenth.
async fn seed(lt: &MysqlLongTerm, scope: &MemoryScope, n: usize) {
    let rules = WeightRules::default();
    let texts = Corpus::new().memories(n, 17);
    let mut ids = Vec::new();
    for (i, item) in texts.into_iter().enumerate() {
        let ty = MemoryType::ALL[i % 4];
        let saved = lt
            .save(
                scope,
                NewMemory::new(ty, "", item.content),
                &rules,
                Utc::now(),
            )
            .await
            .unwrap();
        ids.push(saved.entry.id);
    }
    for (i, &id) in ids.iter().enumerate() {
        let update = if i % 11 == 5 {
            MemoryUpdate::new().content(format!("rewritten memory {i} about the kitchen garden"))
        } else if i % 7 == 3 {
            MemoryUpdate::new().archived(true)
        } else {
            continue;
        };
        lt.update(scope, id, update, HistoryReason::Update, &rules, Utc::now())
            .await
            .unwrap();
    }
    for (i, &id) in ids.iter().enumerate() {
        if i % 13 == 2 {
            assert!(lt.delete(scope, id, Utc::now()).await.unwrap());
        }
    }
}

/// The kept frequencies (rows above 0) and a count from the entries.
async fn kept_and_counted(url: &str) -> (BTreeMap<String, i64>, BTreeMap<String, i64>) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    let kept: Vec<(String, i64)> = conn
        .query("SELECT word, df FROM agcore_lt_terms WHERE df <> 0")
        .await
        .unwrap();
    let columns: Vec<String> = conn
        .query("SELECT terms FROM agcore_lt_entries")
        .await
        .unwrap();
    let mut counted = BTreeMap::new();
    for column in &columns {
        let words: HashSet<&str> = column.split_ascii_whitespace().collect();
        for word in words {
            *counted.entry(word.to_owned()).or_insert(0) += 1;
        }
    }
    drop(conn);
    pool.disconnect().await.unwrap();
    (kept.into_iter().collect(), counted)
}

/// Exhaustive BM25 over every entry of the scope (archived included in the
/// statistics), FTS5's idf, `k1 = 1.2`, `b = 0.75`; best first, ties by id.
fn reference(all: &[MemoryEntry], query: &str, request: &SearchRequest) -> Vec<(i64, f64)> {
    let docs: Vec<Vec<String>> = all.iter().map(|e| index_terms(&e.search_text())).collect();
    let n = all.len() as f64;
    let total: usize = docs.iter().map(Vec::len).sum();
    let (avg, b) = if total > 0 {
        (total as f64 / n, DEFAULT_B)
    } else {
        (1.0, 0.0)
    };
    let words = unique_index_terms(query);
    let dfs: Vec<f64> = words
        .iter()
        .map(|w| docs.iter().filter(|d| d.contains(w)).count() as f64)
        .collect();
    let mut hits: Vec<(i64, f64)> = all
        .iter()
        .zip(&docs)
        .filter(|(e, _)| request.archived.admits(e.archived))
        .filter(|(e, _)| request.memory_type.is_none_or(|t| t == e.memory_type))
        .filter(|(_, d)| words.iter().any(|w| d.contains(w)))
        .map(|(e, d)| {
            let k = DEFAULT_K1 * (1.0 - b + b * d.len() as f64 / avg);
            let score = words
                .iter()
                .zip(&dfs)
                .filter(|(_, df)| **df > 0.0)
                .map(|(w, df)| {
                    let tf = d.iter().filter(|t| *t == w).count() as f64;
                    Bm25::fts5_idf(n, *df) * MAX_TF_PART * (1.0 - k / (tf + k))
                })
                .sum::<f64>();
            (e.id, score)
        })
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    hits.truncate(request.limit);
    hits
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frequencies_follow_writes_and_the_pruned_top_k_is_exhaustive() {
    let Some(base) = support::url() else { return };
    let (_, url) = support::fresh(&base, "ltdf", EvictionConfig::none()).await;
    // Rounds whenever the bounds allow, so that small scopes prune too.
    let db = MysqlDatabase::builder()
        .min_pruned_rows(0)
        .open(&url)
        .await
        .unwrap();
    let lt = db.long_term();
    let scope = MemoryScope::new("agent", "heavy").unwrap();
    let other = MemoryScope::new("agent", "light").unwrap();
    seed(&lt, &scope, 1_500).await;
    seed(&lt, &other, 100).await;

    let (kept, counted) = kept_and_counted(&url).await;
    assert!(counted.len() > 100, "{} words", counted.len());
    assert_eq!(
        kept, counted,
        "kept document frequencies differ from a count"
    );

    let mut every = ListRequest::all();
    every.archived = ArchivedFilter::Include;
    let all = lt.list(&scope, &every).await.unwrap();
    let mut queries = Corpus::new().queries(120, 23);
    queries.extend(
        [
            "user",
            "user kitchen",
            "prefer user answer",
            "咖啡 用户",
            "zzz",
        ]
        .map(String::from),
    );
    let requests = [
        SearchRequest::top_k(1),
        SearchRequest::top_k(5),
        SearchRequest::top_k(10).of_type(MemoryType::Project),
        SearchRequest::top_k(10).archived(ArchivedFilter::Include),
        SearchRequest::top_k(3).archived(ArchivedFilter::Only),
    ];
    let mut compared = 0;
    for query in &queries {
        for request in &requests {
            let want = reference(&all, query, request);
            let got: Vec<(i64, f64)> = lt
                .search(&scope, query, request)
                .await
                .unwrap()
                .into_iter()
                .map(|h| (h.entry.id, h.score))
                .collect();
            assert_eq!(
                got.len(),
                want.len(),
                "`{query}` {request:?}: {got:?} vs {want:?}"
            );
            for ((gid, gs), (wid, ws)) in got.iter().zip(&want) {
                assert!(
                    close(*gs, *ws),
                    "`{query}` {request:?}: {got:?} vs {want:?}"
                );
                assert!(gid == wid || close(*gs, *ws), "`{query}` {request:?}");
            }
            compared += want.len();
        }
    }
    assert!(compared > 1_000, "only {compared} hits compared");
    support::drop_databases(&base, "ltdf").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frequencies_are_counted_on_the_upgrade_that_adds_them() {
    let Some(base) = support::url() else { return };
    let (db, url) = support::fresh(&base, "ltdfup", EvictionConfig::none()).await;
    let lt = db.long_term();
    let scope = MemoryScope::new("agent", "u").unwrap();
    seed(&lt, &scope, 300).await;
    let before = lt
        .search(&scope, "user kitchen garden", &SearchRequest::top_k(10))
        .await
        .unwrap();
    assert!(!before.is_empty());
    // Back to schema version 2, as a database written before the table.
    let mut conn = db.pool().get_conn().await.unwrap();
    conn.query_drop(
        "DROP TABLE agcore_lt_terms; DELETE FROM agcore_lt_meta WHERE name = 'df';
         UPDATE agcore_schema SET version = 2 WHERE component = 'long_term'",
    )
    .await
    .unwrap();
    drop(conn);
    let reopened = MysqlDatabase::open(&url).await.unwrap();
    let (kept, counted) = kept_and_counted(&url).await;
    assert_eq!(kept, counted);
    let after = reopened
        .long_term()
        .search(&scope, "user kitchen garden", &SearchRequest::top_k(10))
        .await
        .unwrap();
    let ids = |hits: &[agcore_memory::long_term::ScoredEntry]| {
        hits.iter()
            .map(|h| (h.entry.id, h.score))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&after), ids(&before));
    support::drop_databases(&base, "ltdfup").await;
}
