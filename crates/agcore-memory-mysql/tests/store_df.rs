//! The store's document frequencies (`agcore_item_terms`), kept by the
//! writers over both BM25F fields: after concurrent saves, rewrites, moves
//! between sessions, deletes and evictions they equal a count made from
//! the stored fields, also after the context field changes; and the search
//! that matches only the words able to change its top results (MaxScore)
//! returns what an `InMemoryStore` holding the same items returns.
#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::support;

use agcore_memory::retriever::ContextField;
use agcore_memory::{
    EvictionConfig, InMemoryStore, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use agcore_memory_mysql::MysqlDatabase;
use agcore_memory_testkit::corpus::Corpus;
use agcore_memory_testkit::ranking::same_ranking;
use agcore_memory_testkit::turn;
use mysql_async::prelude::Queryable;

/// The kept frequencies (rows other than 0) and a count made from the
/// stored fields, each word's items holding it in either field.
async fn kept_and_counted(db: &MysqlDatabase) -> (BTreeMap<String, i64>, BTreeMap<String, i64>) {
    let mut conn = db.pool().get_conn().await.unwrap();
    let kept: Vec<(String, i64)> = conn
        .query("SELECT word, df FROM agcore_item_terms WHERE df <> 0")
        .await
        .unwrap();
    let fields: Vec<(String, String)> = conn
        .query(
            "SELECT i.terms, COALESCE(x.context_terms, '') FROM agcore_items i
             LEFT JOIN agcore_item_context x ON x.doc = i.doc",
        )
        .await
        .unwrap();
    let mut counted = BTreeMap::new();
    for (own, context) in &fields {
        let words: BTreeSet<&str> = own
            .split_ascii_whitespace()
            .chain(context.split_ascii_whitespace())
            .collect();
        for word in words {
            *counted.entry(word.to_owned()).or_insert(0) += 1;
        }
    }
    (kept.into_iter().collect(), counted)
}

const WORDS: [&str; 12] = [
    "violin", "attic", "puppy", "marathon", "lake", "guitar", "cake", "harbour", "snow", "ledger",
    "orchid", "comet",
];

/// Writer `w`'s `n`-th text: common and rare words.
fn text(w: usize, n: usize) -> String {
    let common = WORDS[n % 3];
    let rare = WORDS[3 + (w * 7 + n * 5) % 9];
    format!("{common} {rare} note{} {}", n % 13, WORDS[(n / 3) % 12])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kept_frequencies_equal_a_count_of_the_fields() {
    let Some(base) = support::url() else { return };
    let (db, url) = support::fresh(&base, "storedf", EvictionConfig::capacity(150, 40)).await;
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..4_usize {
        let store = db.store();
        tasks.spawn(async move {
            for n in 0..90_usize {
                let id = format!("w{w}:{}", n % 40);
                let session = format!("s{}", (w + n / 20) % 3);
                let seq = i64::try_from(n * 4 + w).unwrap();
                match n % 9 {
                    // A batch of new turns.
                    0 => {
                        let batch = (0..4)
                            .map(|k| {
                                turn(&format!("w{w}:b{n}:{k}"), &session, seq, &text(w, n + k))
                            })
                            .collect();
                        store.save_many(batch).await.unwrap();
                    }
                    // A delete (of a turn that may be stored).
                    4 => store
                        .delete(&format!("w{w}:{}", (n + 7) % 40))
                        .await
                        .unwrap(),
                    // An item in no session.
                    7 => store
                        .save(MemoryItem::new(id, text(w, n + 1)))
                        .await
                        .unwrap(),
                    // A turn, new or rewriting an id (text, session, time).
                    _ => store
                        .save(turn(&id, &session, seq, &text(w, n)))
                        .await
                        .unwrap(),
                }
            }
        });
    }
    while let Some(done) = tasks.join_next().await {
        done.unwrap();
    }
    let (kept, counted) = kept_and_counted(&db).await;
    assert!(counted.len() > 10, "{counted:?}");
    assert_eq!(kept, counted, "kept frequencies against a count");
    // Another window: the fields are derived again and the words counted.
    let wider = MysqlDatabase::builder()
        .context_field(Some(ContextField::default().with_window(5)))
        .open(&url)
        .await
        .unwrap();
    let (kept, counted) = kept_and_counted(&wider).await;
    assert_eq!(kept, counted, "after the fields were derived again");
    // No context field: the own words alone.
    let plain = MysqlDatabase::builder()
        .context_field(None)
        .open(&url)
        .await
        .unwrap();
    let store = plain.store();
    store
        .save(MemoryItem::new("late", "violin comet"))
        .await
        .unwrap();
    store.delete("w0:1").await.unwrap();
    let (kept, counted) = kept_and_counted(&plain).await;
    assert_eq!(kept, counted, "without a context field");
    // Forgetting the record counts them afresh, to the same numbers.
    let mut conn = plain.pool().get_conn().await.unwrap();
    conn.query_drop("DELETE FROM agcore_store_meta WHERE name = 'df'")
        .await
        .unwrap();
    conn.query_drop("UPDATE agcore_item_terms SET df = df + 3")
        .await
        .unwrap();
    drop(conn);
    let again = MysqlDatabase::builder()
        .context_field(None)
        .open(&url)
        .await
        .unwrap();
    assert_eq!(kept_and_counted(&again).await.0, kept, "counted afresh");
    support::drop_databases(&base, "storedf").await;
}

fn ranked(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
    hits.into_iter().map(|h| (h.item.id, h.score)).collect()
}

/// The 12 most frequent words of `items` and 40 found in 2 to 30 of them.
fn common_and_rare(items: &[MemoryItem]) -> (Vec<String>, Vec<String>) {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for item in items {
        let words: BTreeSet<&str> = item.content.split_whitespace().collect();
        for word in words {
            *counts.entry(word).or_insert(0) += 1;
        }
    }
    let mut by_count: Vec<(&str, usize)> = counts.into_iter().collect();
    by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let common = by_count
        .iter()
        .take(12)
        .map(|(w, _)| (*w).to_owned())
        .collect();
    let rare = (by_count.iter())
        .filter(|(_, n)| (2..=30).contains(n))
        .step_by(7)
        .take(40)
        .map(|(w, _)| (*w).to_owned())
        .collect();
    (common, rare)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pruned_search_equals_the_reference() {
    let Some(base) = support::url() else { return };
    let corpus = Corpus::new();
    let items: Vec<MemoryItem> = (corpus.memories(3_000, 5).into_iter().enumerate())
        .map(|(i, item)| {
            let session = format!("s{}", i / 25);
            item.with_metadata(serde_json::json!({ "session": session, "part": i % 2 }))
        })
        .collect();
    let (common, rare) = common_and_rare(&items);
    let reference = InMemoryStore::new();
    // Rounds whenever the bounds allow, so that 3,000 items prune too.
    let pruning = |url: String, field| async move {
        let builder = MysqlDatabase::builder().min_pruned_rows(0);
        builder.context_field(field).open(&url).await.unwrap()
    };
    let (_, url) = support::fresh(&base, "storeprune", EvictionConfig::none()).await;
    let db = pruning(url, Some(ContextField::default())).await;
    let (_, url) = support::fresh_with(&base, "storeprune", EvictionConfig::none(), None).await;
    let plain = pruning(url, None).await;
    let plain_reference = InMemoryStore::new().with_context_field(None);
    for chunk in items.chunks(500) {
        reference.save_many(chunk.to_vec()).await.unwrap();
        plain_reference.save_many(chunk.to_vec()).await.unwrap();
        db.store().save_many(chunk.to_vec()).await.unwrap();
        plain.store().save_many(chunk.to_vec()).await.unwrap();
    }
    let mut queries: Vec<String> = corpus.queries(40, 13);
    for (i, r) in rare.iter().enumerate() {
        let (a, b) = (
            &common[i % common.len()],
            &common[(i * 5 + 1) % common.len()],
        );
        queries.push(format!("{a} {r}"));
        queries.push(format!("{a} {b} {r} {}", rare[(i + 1) % rare.len()]));
        queries.push(format!("{a} {b}"));
    }
    let options = [
        SearchOptions::top_k(1),
        SearchOptions::top_k(5),
        SearchOptions::top_k(10),
        SearchOptions::top_k(10).with_min_score(4.0),
        SearchOptions::top_k(5).with_filter(MemoryFilter::all().metadata_eq("part", 1.into())),
        SearchOptions::top_k(5).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let mut found = 0;
    for query in &queries {
        for opts in &options {
            for (store, reference) in [(db.store(), &reference), (plain.store(), &plain_reference)]
            {
                let got = ranked(store.search(query, opts).await.unwrap());
                let want = ranked(reference.search(query, opts).await.unwrap());
                found += want.len();
                if let Err(why) = same_ranking(&got, &want) {
                    panic!("`{query}` {opts:?}: {why}");
                }
            }
        }
    }
    assert!(
        found > queries.len() * 10,
        "the queries find something ({found})"
    );
    support::drop_databases(&base, "storeprune").await;
}
