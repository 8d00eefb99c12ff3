//! `SqliteLongTerm` search (threshold algorithm over the scope's
//! impact-ordered postings) equals the exhaustive per-scope BM25 ranking of
//! the entries it lists (`agcore_memory_testkit::reference`) on random
//! corpora spread over several scopes, with saves, duplicate merges,
//! deletes and type/archive filters.
#![cfg(test)]

use agcore_memory::long_term::{
    ArchivedFilter, LongTermBackend, MemoryScope, MemoryType, NewMemory, ScoredEntry,
    SearchRequest, WeightRules,
};
use agcore_memory_sqlite::SqliteLongTerm;
use agcore_memory_testkit::reference::ScopeCopy;
use chrono::Utc;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "green",
    "tea",
    "python",
    "rust",
    "hiking",
    "jazz",
    "database",
    "roses",
    "chess",
    "coffee",
    "绿茶",
    "咖啡",
    "数据库",
];

fn text(words: &[usize]) -> String {
    words
        .iter()
        .map(|&w| WORDS[w % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

#[derive(Debug, Clone)]
enum Op {
    Save {
        scope: usize,
        ty: usize,
        words: Vec<usize>,
    },
    Delete {
        scope: usize,
        nth: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (0usize..3, 0usize..4, prop::collection::vec(
            prop_oneof![3 => 0usize..3, 2 => 0usize..WORDS.len()],
            1..10,
        ))
            .prop_map(|(scope, ty, words)| Op::Save { scope, ty, words }),
        1 => (0usize..3, 0usize..50).prop_map(|(scope, nth)| Op::Delete { scope, nth }),
    ]
}

const TYPES: [MemoryType; 4] = [
    MemoryType::User,
    MemoryType::Project,
    MemoryType::Feedback,
    MemoryType::Reference,
];

fn scope(n: usize) -> MemoryScope {
    MemoryScope::new("agent", format!("user-{n}")).unwrap()
}

fn same(pruned: &[ScoredEntry], exhaustive: &[ScoredEntry], what: &str) {
    let ids = |h: &[ScoredEntry]| h.iter().map(|h| h.entry.id).collect::<Vec<_>>();
    assert_eq!(ids(pruned), ids(exhaustive), "{what}");
    for (p, e) in pruned.iter().zip(exhaustive) {
        assert!(
            (p.score - e.score).abs() <= 1e-9 * e.score.abs().max(1.0),
            "{what}: {} vs {}",
            p.score,
            e.score
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn pruned_scoped_search_equals_the_exhaustive_scan(
        ops in prop::collection::vec(op(), 1..80),
        queries in prop::collection::vec((prop::collection::vec(0usize..WORDS.len(), 1..4), 1usize..8, 0usize..5), 1..6),
    ) {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
            let backend = SqliteLongTerm::open_in_memory().await.unwrap();
            let rules = WeightRules::default();
            let mut ids: Vec<Vec<i64>> = vec![Vec::new(); 3];
            for op in &ops {
                match op {
                    Op::Save { scope: s, ty, words } => {
                        let new = NewMemory::new(TYPES[*ty], "n", text(words));
                        let saved = backend.save(&scope(*s), new, &rules, Utc::now()).await.unwrap();
                        ids[*s].push(saved.entry.id);
                    }
                    Op::Delete { scope: s, nth } => {
                        if let Some(&id) = ids[*s].get(*nth) {
                            backend.delete(&scope(*s), id, Utc::now()).await.unwrap();
                        }
                    }
                }
            }
            let mut listed = Vec::new();
            for s in 0..3 {
                listed.push(ScopeCopy::load(&backend, &scope(s)).await.unwrap());
            }
            for (words, limit, filter) in &queries {
                let q = text(words);
                let mut request = SearchRequest::top_k(*limit);
                match filter {
                    0 => request = request.of_type(MemoryType::User),
                    1 => request = request.archived(ArchivedFilter::Include),
                    _ => {}
                }
                for (s, listed) in listed.iter().enumerate() {
                    let pruned = backend.search(&scope(s), &q, &request).await.unwrap();
                    let exhaustive = listed.search(&q, &request).await.unwrap();
                    same(&pruned, &exhaustive, &format!("scope {s} {q:?} {request:?}"));
                    let user = format!("user-{s}");
                    prop_assert!(pruned.iter().all(|h| h.entry.user_id == user));
                }
            }
            Ok(())
        })?;
    }
}

/// Many entries with exactly equal scores (same terms, same length): the
/// band of ties resolves by id exactly as the exhaustive ranking does.
#[tokio::test(flavor = "multi_thread")]
async fn ties_resolve_by_id_like_the_exhaustive_ranking() {
    let backend = SqliteLongTerm::open_in_memory().await.unwrap();
    let rules = WeightRules::default();
    let topics = ["green tea", "python tooling", "jazz records"];
    for s in 0..3 {
        for i in 0..400usize {
            let content = format!(
                "Note {i}: the user mentioned {} on day {} with detail {}",
                topics[i % topics.len()],
                i / 7,
                i * 31 % 997
            );
            let new = NewMemory::new(MemoryType::User, "n", content);
            backend
                .save(&scope(s), new, &rules, Utc::now())
                .await
                .unwrap();
        }
    }
    let listed = ScopeCopy::load(&backend, &scope(1)).await.unwrap();
    for q in [
        "what about green tea again",
        "jazz",
        "python records",
        "day 3",
        "detail",
    ] {
        for limit in [1, 5, 50] {
            let request = SearchRequest::top_k(limit);
            let pruned = backend.search(&scope(1), q, &request).await.unwrap();
            let exhaustive = listed.search(q, &request).await.unwrap();
            assert!(!pruned.is_empty(), "{q}");
            same(&pruned, &exhaustive, q);
        }
    }
}
