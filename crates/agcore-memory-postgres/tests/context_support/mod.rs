//! Helpers of the context-field tests: searches compared hit by hit, the
//! conversation they share, and the stored index as data ([`snapshot`]) to
//! compare what writers kept up to date with what deriving every field
//! again gives ([`rederived`]).
#![allow(dead_code)]

use agcore_memory::retriever::ContextField;
use agcore_memory::{MemoryItem, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_postgres::PostgresDatabase;
use agcore_memory_testkit::ranking::same_ranking;
use agcore_memory_testkit::turn;

pub fn ids(hits: &[ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

pub async fn search(store: &dyn MemoryStore, query: &str) -> Vec<ScoredItem> {
    store
        .search(query, &SearchOptions::top_k(1000))
        .await
        .unwrap()
}

/// The same hits in the same order with the same scores, near-ties in
/// either order ([`same_ranking`]).
pub fn assert_same(got: &[ScoredItem], want: &[ScoredItem], what: &str) {
    let pairs = |h: &[ScoredItem]| -> Vec<(String, f64)> {
        h.iter().map(|h| (h.item.id.clone(), h.score)).collect()
    };
    if let Err(why) = same_ranking(&pairs(got), &pairs(want)) {
        panic!("{what}: {why}");
    }
}

pub fn conversation() -> Vec<MemoryItem> {
    vec![
        turn("a1", "s1", 1, "Did you finish the marathon in Boston?"),
        turn("a2", "s1", 2, "Yes, last Saturday! My legs still hurt."),
        turn("b1", "s2", 3, "I adopted a puppy named Oscar."),
        MemoryItem::new("note", "The user likes marathon training plans"),
    ]
}

/// The store's index as data: postings `(term, id, tf, len, ctf, clen)`,
/// items `(id, sequence, own length, field length)`, summed statistics
/// `(docs, length, grouped, field length)`, and postings of no item.
/// [`snapshot`] checks that the statistics are the rows' and that no
/// posting is an orphan.
#[derive(Debug, PartialEq)]
pub struct Snapshot {
    postings: Vec<(String, String, i32, i32, i32, i32)>,
    items: Vec<(String, Option<String>, i32, i32)>,
    stats: (i64, i64, i64, i64),
    orphans: i64,
}

pub async fn snapshot(db: &PostgresDatabase) -> Snapshot {
    let client = db.pool().get().await.unwrap();
    let postings = client
        .query(
            "SELECT p.term, i.id, p.tf, p.len, p.ctf, p.clen FROM agcore_postings p
             JOIN agcore_items i ON i.doc = p.doc ORDER BY 1, 2",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5)))
        .collect();
    let items = client
        .query(
            "SELECT id, grp, len, context_len FROM agcore_items ORDER BY id",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
        .collect();
    let row = client
        .query_one(
            "SELECT sum(docs)::int8, sum(total_len)::int8, sum(grouped)::int8, sum(context_len)::int8
             FROM agcore_item_stats",
            &[],
        )
        .await
        .unwrap();
    let orphans = client
        .query_one(
            "SELECT count(*) FROM agcore_postings p
             WHERE NOT EXISTS (SELECT 1 FROM agcore_items i WHERE i.doc = p.doc)",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    let counted = client
        .query_one(
            "SELECT count(*), COALESCE(sum(len), 0)::int8, count(grp),
                    COALESCE(sum(context_len), 0)::int8 FROM agcore_items",
            &[],
        )
        .await
        .unwrap();
    let stats = (row.get(0), row.get(1), row.get(2), row.get(3));
    let counted = (
        counted.get(0),
        counted.get(1),
        counted.get(2),
        counted.get(3),
    );
    assert_eq!(
        stats, counted,
        "statistics (docs, len, grouped, context) vs the rows"
    );
    assert_eq!(orphans, 0, "postings of no item");
    Snapshot {
        postings,
        items,
        stats,
        orphans,
    }
}

/// The snapshot of `schema` after every field is derived again from the
/// rows (its recorded settings marked stale, then opened with `field`).
pub async fn rederived(url: &str, schema: &str, field: Option<ContextField>) -> Snapshot {
    let db = PostgresDatabase::builder()
        .schema(schema)
        .pool_size(1)
        .context_field(field.clone())
        .open(url)
        .await
        .unwrap();
    db.pool()
        .get()
        .await
        .unwrap()
        .execute(
            "UPDATE agcore_store_meta SET value = 'stale' WHERE key = 'context_field'",
            &[],
        )
        .await
        .unwrap();
    let again = PostgresDatabase::builder()
        .schema(schema)
        .pool_size(1)
        .context_field(field)
        .open(url)
        .await
        .unwrap();
    snapshot(&again).await
}
