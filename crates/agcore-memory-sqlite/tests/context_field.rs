//! `SqliteStore`'s context field (`ContextField`, BM25F over neighbouring
//! turns): on the same items it ranks and scores as `InMemoryStore` does,
//! its pruned search equals its exhaustive reference, the field follows
//! saves, replacements and deletions in any order, `context_field(None)`
//! ranks as plain BM25, and files of the previous layout are upgraded.
#![cfg(test)]

use agcore_memory::retriever::ContextField;
use agcore_memory::{
    InMemoryStore, MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions,
};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::reference::store_copy;
use agcore_memory_testkit::turn;
use proptest::prelude::*;

fn ids(hits: &[ScoredItem]) -> Vec<&str> {
    hits.iter().map(|h| h.item.id.as_str()).collect()
}

async fn search(store: &dyn MemoryStore, query: &str) -> Vec<ScoredItem> {
    store
        .search(query, &SearchOptions::top_k(1000))
        .await
        .unwrap()
}

async fn sqlite(context: Option<ContextField>) -> SqliteStore {
    SqliteStore::builder()
        .context_field(context)
        .open_in_memory()
        .await
        .unwrap()
}

/// The same hits in the same order with the same scores, near-ties in
/// either order ([`same_ranking`](agcore_memory_testkit::ranking::same_ranking)).
fn assert_same(got: &[ScoredItem], want: &[ScoredItem], what: &str) {
    let pairs = |h: &[ScoredItem]| -> Vec<(String, f64)> {
        h.iter().map(|h| (h.item.id.clone(), h.score)).collect()
    };
    if let Err(why) = agcore_memory_testkit::ranking::same_ranking(&pairs(got), &pairs(want)) {
        panic!("{what}: {why}");
    }
}

/// `store` ranks `queries` as `reference` does, and every top-k of its
/// pruned search equals the exhaustive ranking of the items it lists,
/// indexed with `context` (the field `store` was opened with); its index
/// is consistent.
async fn assert_ranks_like(
    store: &SqliteStore,
    reference: &InMemoryStore,
    context: Option<ContextField>,
    queries: &[&str],
) {
    let listed = store_copy(store, context).await.unwrap();
    for &query in queries {
        assert_same(
            &search(store, query).await,
            &search(reference, query).await,
            query,
        );
        for limit in [1, 2, 3, 5] {
            let options = SearchOptions::top_k(limit);
            let pruned = store.search(query, &options).await.unwrap();
            let exhaustive = listed.exhaustive_search(query, &options).await.unwrap();
            assert_same(&pruned, &exhaustive, &format!("{query} top {limit}"));
        }
    }
    assert_eq!(store.integrity_check().await.unwrap(), Vec::<String>::new());
}

fn conversation() -> Vec<MemoryItem> {
    vec![
        turn("a1", "s1", 1, "Did you finish the marathon in Boston?"),
        turn("a2", "s1", 2, "Yes, last Saturday! My legs still hurt."),
        turn("b1", "s2", 3, "I adopted a puppy named Oscar."),
        MemoryItem::new("note", "The user likes marathon training plans"),
    ]
}

#[tokio::test]
async fn a_reply_is_found_through_the_question_before_it() {
    let store = sqlite(Some(ContextField::default())).await;
    let reference = InMemoryStore::new();
    store.save_many(conversation()).await.unwrap();
    reference.save_many(conversation()).await.unwrap();
    let hits = search(&store, "When did she run the marathon?").await;
    assert_eq!(ids(&hits)[..2], ["a1", "note"]);
    assert_eq!(ids(&hits)[2], "a2", "found through its context field");
    assert!(hits[2].score < hits[1].score);
    assert_ranks_like(
        &store,
        &reference,
        Some(ContextField::default()),
        &["When did she run the marathon?", "puppy legs"],
    )
    .await;

    let plain = sqlite(None).await;
    plain.save_many(conversation()).await.unwrap();
    assert_eq!(ids(&search(&plain, "marathon").await), ["a1", "note"]);
    let reference = InMemoryStore::new().with_context_field(None);
    reference.save_many(conversation()).await.unwrap();
    assert_ranks_like(&plain, &reference, None, &["marathon", "saturday puppy"]).await;
}

#[tokio::test]
async fn reopening_with_other_settings_indexes_the_items_again() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("context.db");
    let open = |context: Option<ContextField>| {
        let path = path.clone();
        async move {
            SqliteStore::builder()
                .context_field(context)
                .open(path)
                .await
                .unwrap()
        }
    };
    let store = open(Some(ContextField::default())).await;
    store.save_many(conversation()).await.unwrap();
    assert_eq!(ids(&search(&store, "marathon").await), ["a1", "note", "a2"]);
    drop(store);
    let switched = open(None).await;
    assert_eq!(ids(&search(&switched, "marathon").await), ["a1", "note"]);
    assert!(switched.integrity_check().await.unwrap().is_empty());
    drop(switched);
    // Another key and a wider window: the items are grouped again.
    let field = ContextField::default()
        .with_group_key("topic")
        .with_window(2);
    let reference = InMemoryStore::new().with_context_field(Some(field.clone()));
    let items: Vec<MemoryItem> = conversation()
        .into_iter()
        .map(|i| i.with_metadata(serde_json::json!({ "topic": "t" })))
        .collect();
    reference.save_many(items.clone()).await.unwrap();
    let regrouped = open(Some(field.clone())).await;
    regrouped.save_many(items).await.unwrap();
    let queries = ["marathon", "oscar saturday"];
    assert_ranks_like(&regrouped, &reference, Some(field), &queries).await;
}

#[tokio::test]
async fn items_without_a_session_rank_as_plain_bm25() {
    let with = sqlite(Some(ContextField::default())).await;
    let without = sqlite(None).await;
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
        assert_eq!(ids(&a), ids(&b));
        let scores = |h: &[ScoredItem]| h.iter().map(|h| h.score).collect::<Vec<_>>();
        assert_eq!(scores(&a), scores(&b), "bit for bit");
        assert_eq!(scores(&a), scores(&search(&reference, q).await));
    }
}

#[tokio::test]
async fn the_field_follows_deletions_and_replacements() {
    let store = sqlite(Some(ContextField::default())).await;
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
    assert!(store.integrity_check().await.unwrap().is_empty());
}

#[tokio::test]
async fn chinese_turns_get_context_as_character_bigrams() {
    let store = sqlite(Some(ContextField::default())).await;
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
}

#[tokio::test]
async fn eviction_refreshes_the_neighbours() {
    let store = SqliteStore::builder()
        .eviction(agcore_memory::EvictionConfig::capacity(2, 1))
        .open_in_memory()
        .await
        .unwrap();
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
    assert!(store.integrity_check().await.unwrap().is_empty());
}

const WORDS: &[&str] = &[
    "marathon", "boston", "puppy", "oscar", "painting", "sunset", "violin", "guitar", "camping",
    "lake", "adopted", "running", "shoes", "birthday", "cake", "记忆", "系统",
];

const QUERIES: &[&str] = &[
    "marathon boston",
    "puppy",
    "violin guitar lake",
    "记忆系统",
    "cake shoes running",
];

/// One write: save turn `id` (session, second, words; session 3: none), as
/// part of a batch with the next write when `batch`, or delete it.
#[derive(Debug, Clone)]
enum Write {
    Save {
        id: usize,
        session: usize,
        seq: i64,
        words: Vec<usize>,
        batch: bool,
    },
    Delete(usize),
}

fn writes() -> impl Strategy<Value = Vec<Write>> {
    let save = (
        0usize..24,
        0usize..4,
        0i64..12,
        prop::collection::vec(0..WORDS.len(), 0..6),
        prop::bool::weighted(0.3),
    )
        .prop_map(|(id, session, seq, words, batch)| Write::Save {
            id,
            session,
            seq,
            words,
            batch,
        });
    let delete = (0usize..24).prop_map(Write::Delete);
    prop::collection::vec(prop_oneof![6 => save, 1 => delete], 1..50)
}

fn item(id: usize, session: usize, seq: i64, words: &[usize]) -> MemoryItem {
    let text: Vec<&str> = words.iter().map(|&w| WORDS[w]).collect();
    let id = format!("t{id:02}");
    if session == 3 {
        MemoryItem::new(id, text.join(" ")).with_created_at(agcore_memory_testkit::at(seq))
    } else {
        turn(&id, &format!("s{session}"), seq, &text.join(" "))
    }
}

/// Applies `writes` to `store`: batched saves go in one `save_many`.
async fn apply(store: &dyn MemoryStore, writes: &[Write]) {
    let mut batch: Vec<MemoryItem> = Vec::new();
    for w in writes {
        match w {
            Write::Save {
                id,
                session,
                seq,
                words,
                batch: more,
            } => {
                batch.push(item(*id, *session, *seq, words));
                if !more {
                    store.save_many(std::mem::take(&mut batch)).await.unwrap();
                }
            }
            Write::Delete(id) => {
                store.save_many(std::mem::take(&mut batch)).await.unwrap();
                store.delete(&format!("t{id:02}")).await.unwrap();
            }
        }
    }
    store.save_many(batch).await.unwrap();
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Whatever the order of saves, replacements (other text, session or
    /// time) and deletions, the store scores as `InMemoryStore` given the
    /// same writes, and its pruned search equals its exhaustive reference.
    #[test]
    fn store_ranks_like_the_in_memory_store(writes in writes(), window in 1usize..3) {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(async {
            let field = ContextField::default().with_window(window);
            let store = sqlite(Some(field.clone())).await;
            let reference = InMemoryStore::new().with_segment_size(4).with_context_field(Some(field.clone()));
            apply(&store, &writes).await;
            apply(&reference, &writes).await;
            assert_ranks_like(&store, &reference, Some(field), QUERIES).await;
            // Listing a session reads the session index; a store without the
            // field scans the metadata: the same items in the same order.
            let plain = sqlite(None).await;
            apply(&plain, &writes).await;
            for session in 0..4 {
                let filter = MemoryFilter::default()
                    .metadata_eq("session", serde_json::json!(format!("s{session}")));
                assert_eq!(store.list(&filter).await.unwrap(), plain.list(&filter).await.unwrap());
                let limited = filter.clone().limit(2);
                assert_eq!(store.list(&limited).await.unwrap(), plain.list(&limited).await.unwrap());
                assert_eq!(store.count(&filter).await.unwrap(), plain.count(&filter).await.unwrap());
            }
        });
    }
}

/// A file of the previous layout (store version 4, `bm25` version 2: no
/// context columns or statistics) holding turns opens, is upgraded, and
/// ranks them with their context fields; nothing is lost.
#[tokio::test]
async fn a_version_4_file_is_upgraded_with_context_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("v4.db");
    let plain = SqliteStore::builder()
        .context_field(None)
        .open(&path)
        .await
        .unwrap();
    plain.save_many(conversation()).await.unwrap();
    drop(plain);
    // Closing is asynchronous: wait until the file is free.
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    {
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch(
            "DROP INDEX memory_items_group;
             DROP TABLE memory_context_field;
             ALTER TABLE memory_items DROP COLUMN grp;
             ALTER TABLE memory_items DROP COLUMN context_terms;
             ALTER TABLE bm25_terms DROP COLUMN max_ctf;
             ALTER TABLE bm25_terms DROP COLUMN min_clen;
             ALTER TABLE bm25_stats DROP COLUMN grouped;
             ALTER TABLE bm25_stats DROP COLUMN context_tokens;
             UPDATE agcore_schema SET version = 4 WHERE component = 'store';
             UPDATE agcore_schema SET version = 2 WHERE component = 'bm25';",
        )
        .unwrap();
    }
    let db = agcore_memory_sqlite::SqliteDatabase::open(&path)
        .await
        .unwrap();
    let versions = db.schema_versions().await.unwrap();
    assert!(versions.contains(&("store".to_owned(), 6)), "{versions:?}");
    assert!(versions.contains(&("bm25".to_owned(), 3)), "{versions:?}");
    let store = db.store();
    assert_eq!(store.count(&Default::default()).await.unwrap(), 4);
    let reference = InMemoryStore::new();
    reference.save_many(conversation()).await.unwrap();
    assert_ranks_like(
        &store,
        &reference,
        Some(ContextField::default()),
        &["marathon", "When did she run the marathon?"],
    )
    .await;
}
