//! A server driver ranks like SQLite: the same memories (English and
//! Chinese, from the bench [`Corpus`]) saved into both, the same queries,
//! the same hits in the same order with the same BM25 (BM25F) scores, near
//! ties in either order ([`same_ranking`], relative tolerance
//! [`SCORE_TOLERANCE`](crate::ranking::SCORE_TOLERANCE)) — for the store and
//! for a long-term scope among others.
//!
//! The SQLite reference is a parameter (an empty in-memory store of
//! `agcore-memory-sqlite`): the testkit depends on no driver crate.

use agcore_memory::long_term::{LongTermMemory, MemoryType, NewMemory, ScoredEntry};
use agcore_memory::{MemoryFilter, MemoryStore, ScoredItem, SearchOptions};

use super::{ServerHarness, fresh, instance_prefix, long_term_of, report};
use crate::corpus::Corpus;
use crate::ranking::same_ranking;
use crate::{CheckFailure, CheckResult, ensure};

/// The memories saved into the store by [`store_search_ranks_like_sqlite`].
pub const MEMORIES: usize = 1_500;
/// The queries of each comparison.
pub const QUERIES: usize = 120;
/// The pool size of the server's store.
const POOL: usize = 4;

/// The entries of [`long_term_search_of_a_small_store_ranks_like_sqlite`],
/// whose first words each occur in one of them.
pub const TINY: [&str; 4] = [
    "violin lessons on tuesday evenings",
    "marathon training in the park",
    "puppy named biscuit",
    "小提琴 老师 很好",
];

/// The same hits in the same order with the same scores.
fn same(
    driver: &str,
    query: &str,
    sqlite: &[(String, f64)],
    server: &[(String, f64)],
) -> CheckResult {
    same_ranking(server, sqlite)
        .map_err(|why| CheckFailure(format!("`{query}`, {driver} against sqlite: {why}")))
}

fn items(hits: Vec<ScoredItem>) -> Vec<(String, f64)> {
    hits.into_iter().map(|h| (h.item.id, h.score)).collect()
}

fn entries(hits: Vec<ScoredEntry>) -> Vec<(String, f64)> {
    hits.into_iter()
        .map(|h| (h.entry.content, h.score))
        .collect()
}

/// [`MEMORIES`] corpus memories (seed 7, no session) saved in chunks of 500
/// into `sqlite` (empty) and a fresh instance of the driver: [`QUERIES`]
/// queries (seed 11), each with the top 10 and with the top 3 under the id
/// prefix `bench:1`, rank alike ([`compare_store_searches`]).
///
/// Returns early when the server is not configured (fails under `CI=true`).
///
/// # Panics
/// "`{query}`, {driver} against sqlite: {difference}", "the queries find
/// something ({n} hits)", or the driver's
/// [`after_searches`](ServerHarness::after_searches) failure.
pub async fn store_search_ranks_like_sqlite<H: ServerHarness>(
    harness: &H,
    sqlite: &dyn MemoryStore,
) {
    let Some(url) = super::server_url(harness) else {
        return;
    };
    let server = fresh(harness, &url, "rank", POOL).await;
    let fill = async {
        for chunk in Corpus::new().memories(MEMORIES, 7).chunks(500) {
            sqlite.save_many(chunk.to_vec()).await?;
            server.store.save_many(chunk.to_vec()).await?;
        }
        Ok::<_, CheckFailure>(())
    };
    report("store ranking", fill.await);
    compare_store_searches(harness, &url, sqlite, server.store.as_ref()).await;
    let prefix = instance_prefix(harness.separator(), "rank");
    harness.drop_instances(&url, &prefix).await;
}

/// The comparison of [`store_search_ranks_like_sqlite`] on stores the
/// caller filled alike (`sqlite` and `server`, a store of the driver on the
/// server at `url`): [`QUERIES`] corpus queries (seed 11), each with the top
/// 10 and with the top 3 under the id prefix `bench:1`, give the same
/// ranking in both; together more than [`QUERIES`] hits. The driver's
/// [`before_searches`](ServerHarness::before_searches) and
/// [`after_searches`](ServerHarness::after_searches) enclose the searches.
///
/// # Panics
/// As [`store_search_ranks_like_sqlite`].
pub async fn compare_store_searches<H: ServerHarness>(
    harness: &H,
    url: &str,
    sqlite: &dyn MemoryStore,
    server: &dyn MemoryStore,
) {
    let options = [
        SearchOptions::top_k(10),
        SearchOptions::top_k(3).with_filter(MemoryFilter::with_prefix("bench:1")),
    ];
    let before = harness.before_searches(url).await;
    let compare = async {
        let mut hits = 0;
        for query in Corpus::new().queries(QUERIES, 11) {
            for opts in &options {
                let s = items(sqlite.search(&query, opts).await?);
                let p = items(server.search(&query, opts).await?);
                hits += s.len();
                same(harness.name(), &query, &s, &p)?;
            }
        }
        Ok::<_, CheckFailure>(hits)
    };
    let hits = match compare.await {
        Ok(hits) => hits,
        Err(why) => {
            report("store ranking", Err(why));
            0
        }
    };
    harness
        .after_searches(url, before, QUERIES * options.len())
        .await;
    report(
        "store ranking",
        ensure(hits > QUERIES, || {
            format!("the queries find something ({hits} hits)")
        }),
    );
}

/// A long-term scope among others ranks like SQLite: 400 corpus memories
/// (seed 7) in scope `agent`/`main` and 300 (seed 8) in `agent`/`other` of
/// `sqlite` (empty) and of a fresh instance of the driver; [`QUERIES`]
/// queries (seed 11) searching the top 5 of the main scope rank alike (the
/// other scope's entries must not change the scores), with more than
/// [`QUERIES`] hits in all.
///
/// Returns early when the server is not configured (fails under `CI=true`).
///
/// # Panics
/// "`{query}`, {driver} against sqlite: {difference}", "the queries find
/// something ({n} hits)", or the driver's
/// [`after_searches`](ServerHarness::after_searches) failure.
pub async fn long_term_search_ranks_like_sqlite<H: ServerHarness>(
    harness: &H,
    sqlite: LongTermMemory,
) {
    let Some(url) = super::server_url(harness) else {
        return;
    };
    let server = fresh(harness, &url, "ltrank", POOL).await;
    let fill = async {
        let corpus = Corpus::new();
        let mut scopes = Vec::new();
        for memory in [sqlite, long_term_of(&server, harness.name())?] {
            let (main, other) = (
                memory.scope("agent", "main")?,
                memory.scope("agent", "other")?,
            );
            for item in corpus.memories(400, 7) {
                main.save(NewMemory::new(MemoryType::User, "n", item.content))
                    .await?;
            }
            // Another scope's entries must not change the main scope's scores.
            for item in corpus.memories(300, 8) {
                other
                    .save(NewMemory::new(MemoryType::User, "n", item.content))
                    .await?;
            }
            scopes.push(main);
        }
        Ok::<_, CheckFailure>(scopes)
    };
    let scopes = fill.await;
    let before = harness.before_searches(&url).await;
    let compare = async {
        let [sqlite, server] =
            <[_; 2]>::try_from(scopes?).map_err(|_| CheckFailure("two scopes".into()))?;
        let mut hits = 0;
        for query in Corpus::new().queries(QUERIES, 11) {
            let s = entries(sqlite.search(&query, 5).await?);
            let p = entries(server.search(&query, 5).await?);
            hits += s.len();
            same(harness.name(), &query, &s, &p)?;
        }
        ensure(hits > QUERIES, || {
            format!("the queries find something ({hits} hits)")
        })
    };
    report("long-term ranking", compare.await);
    harness.after_searches(&url, before, QUERIES).await;
    let prefix = instance_prefix(harness.separator(), "ltrank");
    harness.drop_instances(&url, &prefix).await;
}

/// [`QUERIES`] queries of one, two or three words taken from the first two
/// words of each [`TINY`] entry.
fn tiny_queries() -> Vec<String> {
    let words: Vec<&str> = TINY.iter().flat_map(|t| t.split(' ').take(2)).collect();
    let word = |i: usize| words.get(i % words.len()).copied().unwrap_or_default();
    (0..QUERIES)
        .map(|i| match i % 3 {
            0 => word(i).to_owned(),
            1 => format!("{} {}", word(i), word(i / 3)),
            _ => format!("{} tuesday park", word(i)),
        })
        .collect()
}

/// A long-term store of four entries ([`TINY`], one of them Chinese) ranks
/// like SQLite: [`QUERIES`] queries of their first words, each finding
/// something in `sqlite` (empty before), give the same top 5 in a fresh
/// instance of the driver. (On MySQL the server reads the entries' table
/// first and the winners' derived table second here, so a join's
/// `ORDER BY` sorted the rows in a temporary table.)
///
/// Returns early when the server is not configured (fails under `CI=true`).
///
/// # Panics
/// "`{query}` finds something", "`{query}`, {driver} against sqlite:
/// {difference}", or the driver's
/// [`after_searches`](ServerHarness::after_searches) failure.
pub async fn long_term_search_of_a_small_store_ranks_like_sqlite<H: ServerHarness>(
    harness: &H,
    sqlite: LongTermMemory,
) {
    let Some(url) = super::server_url(harness) else {
        return;
    };
    let server = fresh(harness, &url, "lttiny", POOL).await;
    let fill = async {
        let mut scopes = Vec::new();
        for memory in [sqlite, long_term_of(&server, harness.name())?] {
            let scope = memory.scope("agent", "main")?;
            for text in TINY {
                scope
                    .save(NewMemory::new(MemoryType::User, "n", text))
                    .await?;
            }
            scopes.push(scope);
        }
        Ok::<_, CheckFailure>(scopes)
    };
    let scopes = fill.await;
    let queries = tiny_queries();
    let before = harness.before_searches(&url).await;
    let compare = async {
        let [sqlite, server] =
            <[_; 2]>::try_from(scopes?).map_err(|_| CheckFailure("two scopes".into()))?;
        for query in &queries {
            let s = entries(sqlite.search(query, 5).await?);
            let p = entries(server.search(query, 5).await?);
            ensure(!s.is_empty(), || format!("`{query}` finds something"))?;
            same(harness.name(), query, &s, &p)?;
        }
        Ok::<_, CheckFailure>(())
    };
    report("small long-term ranking", compare.await);
    harness.after_searches(&url, before, queries.len()).await;
    let prefix = instance_prefix(harness.separator(), "lttiny");
    harness.drop_instances(&url, &prefix).await;
}
