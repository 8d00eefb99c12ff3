//! Tests of [`ContextualIndex`](super::ContextualIndex).

use super::*;

fn doc<'a>(id: &'a str, text: &'a str, group: &'a str) -> IndexDocument<'a> {
    IndexDocument {
        id,
        text,
        group: Some(group),
    }
}

#[test]
fn context_never_crosses_groups() {
    let docs = [
        doc("a", "marathon in boston", "s1"),
        doc("b", "yes last saturday", "s1"),
        doc("c", "yes last saturday", "s2"),
    ];
    let index = ContextualIndex::new(&docs, ContextualParams::default());
    let hits: Vec<usize> = index
        .search("marathon", 3)
        .into_iter()
        .map(|h| h.0)
        .collect();
    assert_eq!(hits, [0, 1]);
}

#[test]
fn ties_rank_by_id_and_k_cuts() {
    let docs = [doc("z", "green tea", "1"), doc("m", "green tea", "2")];
    let index = ContextualIndex::new(&docs, ContextualParams::default());
    assert_eq!(index.search("tea", 2)[0].0, 1);
    assert_eq!(index.search("tea", 1).len(), 1);
    assert!(index.search("tea", 0).is_empty());
    assert!(index.search("the", 2).is_empty());
}

#[test]
fn rm3_keeps_the_direct_match_first() {
    let docs = [
        doc("a", "marathon boston legs", "1"),
        doc("b", "boston harbour", "2"),
        doc("c", "cooking pasta", "3"),
    ];
    let params = ContextualParams {
        rm3: Some(Rm3Config::default()),
        ..ContextualParams::default()
    };
    let hits = ContextualIndex::new(&docs, params).search("marathon", 3);
    assert_eq!(hits[0].0, 0);
    assert!(hits.iter().all(|h| h.0 != 2));
}
