//! Pruned top-k search equals exhaustive BM25F scoring on random corpora
//! (most items in sessions, so with context fields):
//! `InMemoryStore::search` (MaxScore over id-ordered segments, from one item
//! per segment to one segment) against `exhaustive_search`, and
//! `SqliteStore::search` (impact-ordered threshold algorithm) against the
//! exhaustive BM25F ranking of the rows it lists
//! (`agcore_memory_testkit::reference`).
#![cfg(test)]

use agcore_memory::retriever::ContextField;
use agcore_memory::{InMemoryStore, MemoryItem, MemoryStore, ScoredItem, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_memory_testkit::reference::store_copy;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "apple", "banana", "cherry", "delta", "echo", "falcon", "garden", "harbor", "island", "jungle",
    "kernel", "lemon", "记忆", "检索", "系统",
];

/// A document: word indexes, skewed towards the first words (Zipf-like).
fn doc() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(
        prop_oneof![
            4 => 0usize..3,
            3 => 0usize..8,
            2 => 0usize..WORDS.len(),
        ],
        1..12,
    )
}

fn text(words: &[usize]) -> String {
    words
        .iter()
        .map(|&w| WORDS[w % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// One write: upsert of `doc` under id number `id`, or (when `delete`) a delete.
#[derive(Debug, Clone)]
struct Write {
    id: usize,
    doc: Vec<usize>,
    delete: bool,
}

fn writes() -> impl Strategy<Value = Vec<Write>> {
    prop::collection::vec(
        (0usize..60, doc(), prop::bool::weighted(0.1)).prop_map(|(id, doc, delete)| Write {
            id,
            doc,
            delete,
        }),
        1..120,
    )
}

#[derive(Debug, Clone)]
struct Query {
    words: Vec<usize>,
    limit: usize,
    prefix: Option<&'static str>,
    min_score: Option<f64>,
}

fn query() -> impl Strategy<Value = Query> {
    (
        prop::collection::vec(0usize..WORDS.len(), 1..5),
        1usize..8,
        prop::option::weighted(0.2, prop_oneof![Just("a:"), Just("b:")]),
        prop::option::weighted(0.2, 0.0f64..4.0),
    )
        .prop_map(|(words, limit, prefix, min_score)| Query {
            words,
            limit,
            prefix,
            min_score,
        })
}

fn options(q: &Query) -> SearchOptions {
    let mut options = SearchOptions::top_k(q.limit);
    if let Some(prefix) = q.prefix {
        options = options.with_prefix(prefix);
    }
    if let Some(min) = q.min_score {
        options = options.with_min_score(min);
    }
    options
}

fn item_id(n: usize) -> String {
    format!("{}:{n:03}", if n.is_multiple_of(3) { "a" } else { "b" })
}

/// The item a write saves: in one of three sessions (none for a fourth of
/// the documents), picked by its first word, so a rewrite may move it; its
/// time from its id, so sessions interleave.
fn saved(w: &Write) -> MemoryItem {
    let id = item_id(w.id);
    let seq = i64::try_from(w.id % 7).unwrap();
    match w.doc.first().map_or(3, |d| d % 4) {
        3 => MemoryItem::new(id, text(&w.doc)).with_created_at(agcore_memory_testkit::at(seq)),
        s => agcore_memory_testkit::turn(&id, &format!("s{s}"), seq, &text(&w.doc)),
    }
}

async fn apply(store: &dyn MemoryStore, writes: &[Write]) {
    for w in writes {
        if w.delete {
            store.delete(&item_id(w.id)).await.unwrap();
        } else {
            store.save(saved(w)).await.unwrap();
        }
    }
}

/// Same ids in the same order, scores equal up to float noise.
fn assert_same(pruned: &[ScoredItem], exhaustive: &[ScoredItem], what: &str) {
    let ids = |hits: &[ScoredItem]| hits.iter().map(|h| h.item.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(pruned), ids(exhaustive), "{what}");
    for (p, e) in pruned.iter().zip(exhaustive) {
        assert!(
            (p.score - e.score).abs() <= 1e-9 * e.score.abs().max(1.0),
            "{what}: score {} vs {}",
            p.score,
            e.score
        );
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn in_memory_max_score_equals_exhaustive(
        writes in writes(),
        queries in prop::collection::vec(query(), 1..6),
        segment in prop_oneof![Just(1usize), Just(2), Just(3), Just(7), Just(4096)],
    ) {
        runtime().block_on(async {
            // Small segments: many seals and tiered merges, ties across segments.
            let store = InMemoryStore::new().with_segment_size(segment);
            apply(&store, &writes).await;
            for q in &queries {
                let text = text(&q.words);
                let opts = options(q);
                let pruned = store.search(&text, &opts).await.unwrap();
                let exhaustive = store.exhaustive_search(&text, &opts).await.unwrap();
                assert_same(&pruned, &exhaustive, &format!("{q:?}"));
            }
        });
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn sqlite_threshold_algorithm_equals_exhaustive_bm25f(writes in writes(), queries in prop::collection::vec(query(), 1..6)) {
        runtime().block_on(async {
            let store = SqliteStore::open_in_memory().await.unwrap();
            apply(&store, &writes).await;
            let listed = store_copy(&store, Some(ContextField::default())).await.unwrap();
            for q in &queries {
                let text = text(&q.words);
                let opts = options(q);
                let pruned = store.search(&text, &opts).await.unwrap();
                let exhaustive = listed.exhaustive_search(&text, &opts).await.unwrap();
                assert_same(&pruned, &exhaustive, &format!("{q:?}"));
            }
            assert!(store.integrity_check().await.unwrap().is_empty());
        });
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sqlite_pruning_follows_batches_upserts_and_eviction() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::builder()
        .eviction(agcore_memory::EvictionConfig::capacity(1500, 100))
        .open(dir.path().join("p.db"))
        .await
        .unwrap();
    for round in 0..4usize {
        let items = (0..900usize)
            .map(|n| {
                let words: Vec<usize> = (0..(2 + (n * 5 + round) % 9))
                    .map(|i| (n * 7 + i * 3 + round) % WORDS.len())
                    .collect();
                MemoryItem::new(format!("r{round}:{n:04}"), text(&words))
            })
            .chain((0..50).map(|n| MemoryItem::new(item_id(n), text(&[n % 5, round]))))
            .collect();
        store.save_many(items).await.unwrap();
        store.delete(&item_id(round)).await.unwrap();
        let listed = store_copy(&store, Some(ContextField::default()))
            .await
            .unwrap();
        for words in [
            [0usize, 5].as_slice(),
            &[12, 13],
            &[3, 9, 11],
            &[14],
            &[1, 2, 4, 6],
        ] {
            let q = text(words);
            for limit in [1, 10, 40] {
                let opts = SearchOptions::top_k(limit);
                let pruned = store.search(&q, &opts).await.unwrap();
                let exhaustive = listed.exhaustive_search(&q, &opts).await.unwrap();
                assert!(!pruned.is_empty());
                assert_same(&pruned, &exhaustive, &q);
            }
        }
    }
    assert!(store.integrity_check().await.unwrap().is_empty());
}

#[tokio::test]
async fn in_memory_pruning_survives_compaction() {
    for segment in [5, 64, 4096] {
        pruning_survives_compaction(InMemoryStore::new().with_segment_size(segment)).await;
    }
}

async fn pruning_survives_compaction(store: InMemoryStore) {
    // Every round rewrites all ids: tombstones pile up and force compactions.
    for round in 0..6usize {
        let items = (0..800usize)
            .map(|n| {
                let words: Vec<usize> = (0..(3 + (n + round) % 7))
                    .map(|i| (n * 7 + i * 3 + round) % WORDS.len())
                    .collect();
                MemoryItem::new(item_id(n), text(&words))
            })
            .collect();
        store.save_many(items).await.unwrap();
    }
    assert_eq!(
        store
            .count(&agcore_memory::MemoryFilter::all())
            .await
            .unwrap(),
        800
    );
    for words in [[0usize, 5].as_slice(), &[12, 13], &[3, 9, 11], &[14]] {
        let q = text(words);
        for limit in [1, 10, 50] {
            let opts = SearchOptions::top_k(limit);
            let pruned = store.search(&q, &opts).await.unwrap();
            let exhaustive = store.exhaustive_search(&q, &opts).await.unwrap();
            assert!(!pruned.is_empty());
            assert_same(&pruned, &exhaustive, &q);
        }
    }
}

/// Many documents with the same score, saved in scrambled id order: every
/// segment layout returns the smallest ids, whether the tied documents sit
/// in the unsorted tail, in sorted segments, or are upserted into the tail.
#[tokio::test]
async fn in_memory_ties_break_by_id_in_every_segment_layout() {
    for segment in [1, 2, 3, 4, 5, 8, 16, 4096] {
        let store = InMemoryStore::new().with_segment_size(segment);
        for n in (0..60usize).map(|i| (i * 37 + 11) % 60) {
            store
                .save(MemoryItem::new(format!("t:{n:02}"), "apple banana"))
                .await
                .unwrap();
        }
        store
            .save(MemoryItem::new("z:strong", "apple apple banana"))
            .await
            .unwrap();
        // Upserts move two of the smallest ids to the end of the table.
        for id in ["t:01", "t:00"] {
            store
                .save(MemoryItem::new(id, "apple banana"))
                .await
                .unwrap();
        }
        for query in ["apple", "banana", "apple banana", "banana cherry"] {
            for limit in [1, 2, 3, 10, 59, 61, 70] {
                let opts = SearchOptions::top_k(limit);
                let pruned = store.search(query, &opts).await.unwrap();
                let exhaustive = store.exhaustive_search(query, &opts).await.unwrap();
                let what = format!("segment {segment}, {query:?}, top {limit}");
                assert_same(&pruned, &exhaustive, &what);
                // "z:strong" wins on "apple" (tf 2) and loses on "banana" (longer).
                let mut expected: Vec<String> = (0..60).map(|n| format!("t:{n:02}")).collect();
                if query.contains("apple") {
                    expected.insert(0, "z:strong".to_owned());
                } else {
                    expected.push("z:strong".to_owned());
                }
                expected.truncate(limit);
                let ids: Vec<String> = pruned.iter().map(|h| h.item.id.clone()).collect();
                assert_eq!(ids, expected, "{what}");
            }
        }
    }
}

/// A tie lost in a segment stops counting once a better result enters: the
/// new k-th result may come from an earlier segment with a larger id, which
/// later documents of the segment beat on a tie.
#[tokio::test]
async fn in_memory_tie_rule_resets_when_the_kth_result_changes() {
    let store = InMemoryStore::new().with_segment_size(4);
    let docs = [
        // First segment (sorted): fillers, then the far id "z9".
        ("f1", "kiwi"),
        ("f2", "kiwi"),
        ("f3", "kiwi"),
        ("z9", "apple"),
        // Second segment: two weak ties, a strong document, then "b4",
        // which ties "z9" and beats it on the id.
        ("b1", "apple kiwi"),
        ("b2", "apple kiwi"),
        ("b3", "apple cherry"),
        ("b4", "apple"),
    ];
    for (id, text) in docs {
        store.save(MemoryItem::new(id, text)).await.unwrap();
    }
    let opts = SearchOptions::top_k(2);
    let pruned = store.search("apple cherry", &opts).await.unwrap();
    let exhaustive = store
        .exhaustive_search("apple cherry", &opts)
        .await
        .unwrap();
    assert_same(&pruned, &exhaustive, "apple cherry");
    let ids: Vec<&str> = pruned.iter().map(|h| h.item.id.as_str()).collect();
    assert_eq!(ids, ["b3", "b4"]);
}
