//! The four memory types and the filters, orders and limits of `list` and
//! `search`.

use std::time::Duration;

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, LongTermMemory, MemoryEntry, MemoryType, MemoryUpdate,
    NewMemory, SearchRequest,
};

fn ids(entries: &[MemoryEntry]) -> Vec<i64> {
    entries.iter().map(|e| e.id).collect()
}

fn sorted(mut ids: Vec<i64>) -> Vec<i64> {
    ids.sort_unstable();
    ids
}

/// Every [`MemoryType`] round-trips; `list` and `search` filter by type and
/// by archive flag ([`ArchivedFilter`]: excluded by default, `Include`,
/// `Only`); `ListRequest::core` keeps weights ≥ the minimum, heaviest first;
/// [`ListOrder::Created`] is save order, [`ListOrder::Weight`] heaviest
/// first, the default most recently updated first; limits cut the ordered
/// result.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_types_and_filters(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let weights = [1.0, 3.0, 0.5, 2.0, 4.0, 1.5, 2.5, 0.8];
    let mut saved = Vec::new();
    for (n, weight) in weights.into_iter().enumerate() {
        let ty = MemoryType::ALL
            .get(n / 2)
            .copied()
            .unwrap_or(MemoryType::User);
        let text = format!("Shared note number {n} of kind {}", ty.as_str());
        let e = m
            .save(NewMemory::new(ty, format!("n{n}"), text).with_weight(weight))
            .await?
            .entry;
        saved.push(e);
    }
    for ty in MemoryType::ALL {
        let want: Vec<i64> = saved
            .iter()
            .filter(|e| e.memory_type == ty)
            .map(|e| e.id)
            .collect();
        for e in saved.iter().filter(|e| e.memory_type == ty) {
            let got = m.get(e.id).await?.map(|g| g.memory_type);
            ensure(got == Some(ty), || {
                format!("type {ty:?} read back as {got:?}")
            })?;
        }
        let listed = m.list(&ListRequest::all().of_type(ty)).await?;
        ensure(sorted(ids(&listed)) == want, || {
            format!("list of type {ty:?}: {:?}, want {want:?}", ids(&listed))
        })?;
        let hits = m
            .search_with("shared note", &SearchRequest::top_k(20).of_type(ty))
            .await?;
        let mut got: Vec<i64> = hits.iter().map(|h| h.entry.id).collect();
        got.sort_unstable();
        ensure(got == want, || {
            format!("search of type {ty:?}: {got:?}, want {want:?}")
        })?;
    }
    let created = m
        .list(&ListRequest::all().order(ListOrder::Created))
        .await?;
    ensure(ids(&created) == ids(&saved), || {
        format!(
            "Created order {:?}, want save order {:?}",
            ids(&created),
            ids(&saved)
        )
    })?;
    let by_weight = m.list(&ListRequest::all().order(ListOrder::Weight)).await?;
    let w: Vec<f64> = by_weight.iter().map(|e| e.weight).collect();
    ensure(
        w.len() == 8 && w.iter().zip(w.iter().skip(1)).all(|(a, b)| a >= b),
        || format!("Weight order must be heaviest first: {w:?}"),
    )?;
    let top3 = m
        .list(&ListRequest::all().order(ListOrder::Weight).limit(3))
        .await?;
    ensure(
        ids(&top3) == ids(&by_weight).into_iter().take(3).collect::<Vec<_>>(),
        || format!("limit 3 must cut the ordered list: {:?}", ids(&top3)),
    )?;
    let core = m.list(&ListRequest::core(2.0)).await?;
    let cw: Vec<f64> = core.iter().map(|e| e.weight).collect();
    ensure(cw == [4.0, 3.0, 2.5, 2.0], || {
        format!("core(2.0) weights {cw:?}, want [4.0, 3.0, 2.5, 2.0]")
    })?;

    // The most recently updated entry lists first by default.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let oldest = saved.first().map(|e| e.id).unwrap_or_default();
    m.update(oldest, MemoryUpdate::new().description("touched"))
        .await?;
    let recent = m.list(&ListRequest::all()).await?;
    ensure(recent.first().map(|e| e.id) == Some(oldest), || {
        format!(
            "default order must start with the updated entry: {:?}",
            ids(&recent)
        )
    })?;
    let limited = m.list(&ListRequest::all().limit(3)).await?;
    ensure(
        limited.len() == 3 && limited.first().map(|e| e.id) == Some(oldest),
        || format!("limit 3 of the default order: {:?}", ids(&limited)),
    )?;

    // Archive one project and one reference entry.
    let archived: Vec<i64> = saved
        .iter()
        .filter(|e| matches!(e.memory_type, MemoryType::Project | MemoryType::Reference))
        .step_by(2)
        .map(|e| e.id)
        .collect();
    for id in &archived {
        m.update(*id, MemoryUpdate::new().archived(true)).await?;
    }
    let active = m.list(&ListRequest::all()).await?;
    ensure(
        active.len() == 6 && active.iter().all(|e| !e.archived),
        || {
            format!(
                "default list must hold the 6 active entries: {:?}",
                ids(&active)
            )
        },
    )?;
    let only = m.list(&ListRequest::archived_only()).await?;
    ensure(sorted(ids(&only)) == sorted(archived.clone()), || {
        format!("archived_only {:?}, want {archived:?}", ids(&only))
    })?;
    let all = m.list(&super::including_archived()).await?;
    ensure(all.len() == 8, || {
        format!("Include lists {} entries, want 8", all.len())
    })?;
    for (filter, want) in [
        (ArchivedFilter::Exclude, 6),
        (ArchivedFilter::Include, 8),
        (ArchivedFilter::Only, 2),
    ] {
        let hits = m
            .search_with("shared note", &SearchRequest::top_k(20).archived(filter))
            .await?;
        let archived_ok = hits.iter().all(|h| filter.admits(h.entry.archived));
        ensure(hits.len() == want && archived_ok, || {
            format!("search with {filter:?}: {} hits, want {want}", hits.len())
        })?;
    }
    let hits = m
        .search_with(
            "shared note",
            &SearchRequest::top_k(20)
                .of_type(MemoryType::Project)
                .archived(ArchivedFilter::Only),
        )
        .await?;
    let want: Vec<i64> = archived.iter().take(1).copied().collect();
    let got: Vec<i64> = hits.iter().map(|h| h.entry.id).collect();
    ensure(got == want, || {
        format!("archived project entries: {got:?}, want {want:?}")
    })?;
    let top = m.search("shared note", 3).await?;
    ensure(top.len() == 3, || {
        format!("search limit 3 gave {} hits", top.len())
    })
}
