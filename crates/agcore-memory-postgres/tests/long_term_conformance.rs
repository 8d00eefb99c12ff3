//! The public long-term conformance suite against `PostgresLongTerm`, each
//! memory in a fresh schema.
#![cfg(test)]

use crate::support;

use agcore_memory::EvictionConfig;
use agcore_memory::long_term::LongTermMemory;
use agcore_memory_testkit::long_term::{LONG_TERM_CHECKS, long_term_report};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_long_term_passes_the_conformance_suite() {
    let Some(url) = support::url() else { return };
    let make_url = url.clone();
    let report = long_term_report(move || {
        let url = make_url.clone();
        async move {
            let (db, _) = support::fresh(&url, "ltconf", EvictionConfig::none()).await;
            LongTermMemory::new(db.long_term())
        }
    })
    .await;
    support::drop_schemas(&url, "ltconf").await;
    eprintln!("{report}");
    assert!(report.is_success(), "{report}");
    assert_eq!(report.passed, LONG_TERM_CHECKS);
}

/// A listing's type, weight and limit conditions (written only when set)
/// and its order select what `ListRequest::admits` admits.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_long_term_lists_by_type_weight_and_limit() {
    use agcore_memory::long_term::{
        ListOrder, ListRequest, LongTermBackend, MemoryScope, MemoryType, NewMemory, WeightRules,
    };
    let Some(url) = support::url() else { return };
    let (db, _) = support::fresh(&url, "ltlist", EvictionConfig::none()).await;
    let lt = db.long_term();
    let scope = MemoryScope::new("agent", "lister").unwrap();
    let (rules, now) = (WeightRules::default(), chrono::Utc::now());
    for (i, (ty, weight)) in [
        (MemoryType::User, 0.5),
        (MemoryType::Project, 2.0),
        (MemoryType::User, 3.0),
        (MemoryType::Feedback, 1.0),
    ]
    .into_iter()
    .enumerate()
    {
        let new =
            NewMemory::new(ty, format!("n{i}"), format!("fact number {i}")).with_weight(weight);
        lt.save(&scope, new, &rules, now).await.unwrap();
    }
    let all = lt.list(&scope, &ListRequest::all()).await.unwrap();
    assert_eq!(all.len(), 4);
    let requests = [
        ListRequest::all().of_type(MemoryType::User),
        ListRequest::core(1.0),
        ListRequest::core(1.0).of_type(MemoryType::User).limit(1),
        ListRequest::all().order(ListOrder::Weight).limit(2),
        ListRequest::all().order(ListOrder::Created),
    ];
    for request in requests {
        let listed = lt.list(&scope, &request).await.unwrap();
        let mut expected: Vec<_> = all.iter().filter(|e| request.admits(e)).cloned().collect();
        match request.order {
            ListOrder::Weight => {
                expected.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.id.cmp(&b.id)))
            }
            ListOrder::Created => expected.sort_by_key(|e| e.id),
            _ => expected.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id))),
        }
        expected.truncate(request.limit.unwrap_or(usize::MAX));
        let ids = |entries: &[agcore_memory::long_term::MemoryEntry]| {
            entries.iter().map(|e| e.id).collect::<Vec<_>>()
        };
        assert_eq!(ids(&listed), ids(&expected), "{request:?}");
    }
    support::drop_schemas(&url, "ltlist").await;
}
