//! Search ranking sanity in English and Chinese, and search options.

use std::sync::Arc;

use super::{CheckResult, at, ensure, hit_ids};
use agcore_memory::{MemoryFilter, MemoryItem, MemoryStore, ScoredItem, SearchOptions};

async fn save_all(store: &dyn MemoryStore, docs: &[(&str, &str)]) -> CheckResult {
    for (i, (id, text)) in docs.iter().enumerate() {
        let t = i64::try_from(i).unwrap_or(0);
        store
            .save(MemoryItem::new(*id, *text).with_created_at(at(t)))
            .await?;
    }
    Ok(())
}

fn sorted_desc(hits: &[ScoredItem]) -> CheckResult {
    ensure(hits.iter().all(|h| h.score.is_finite()), || {
        format!("scores must be finite: {hits:?}")
    })?;
    ensure(
        hits.windows(2)
            .all(|w| w.first().map(|a| a.score) >= w.get(1).map(|b| b.score)),
        || {
            format!(
                "hits must be best first: {:?}",
                hits.iter().map(|h| h.score).collect::<Vec<_>>()
            )
        },
    )
}

async fn expect_top(
    store: &dyn MemoryStore,
    query: &str,
    want: &str,
    absent: &[&str],
) -> CheckResult {
    let hits = store.search(query, &SearchOptions::top_k(10)).await?;
    sorted_desc(&hits)?;
    let got = hit_ids(&hits);
    ensure(got.first() == Some(&want), || {
        format!("query {query:?}: expected {want} first, got {got:?}")
    })?;
    for id in absent {
        ensure(!got.contains(id), || {
            format!("query {query:?} must not find {id}: {got:?}")
        })?;
    }
    Ok(())
}

/// English queries: the document holding every query term ranks first,
/// unrelated documents are not returned, matching is case-insensitive.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_search_english(store: Arc<dyn MemoryStore>) -> CheckResult {
    save_all(
        store.as_ref(),
        &[
            ("en:1", "Rust memory store with a fast inverted index"),
            ("en:2", "Rust compiler error messages are helpful"),
            ("en:3", "Python memory profiler for long running jobs"),
            ("en:4", "Gardening tips for spring tomatoes"),
            (
                "en:5",
                "The user prefers concise answers without long explanations",
            ),
        ],
    )
    .await?;
    expect_top(store.as_ref(), "rust memory index", "en:1", &["en:4"]).await?;
    expect_top(
        store.as_ref(),
        "TOMATOES",
        "en:4",
        &["en:1", "en:2", "en:3", "en:5"],
    )
    .await?;
    expect_top(store.as_ref(), "concise answers", "en:5", &["en:4"]).await?;
    expect_top(
        store.as_ref(),
        "compiler errors messages",
        "en:2",
        &["en:4"],
    )
    .await?;
    let none = store
        .search("xylophone quasar", &SearchOptions::default())
        .await?;
    ensure(none.is_empty(), || {
        format!("unmatched query found {:?}", hit_ids(&none))
    })
}

/// Chinese queries match Chinese text (two-character words, and one
/// character inside a longer word: `茶` finds `我最喜欢的茶是龙井`), rank
/// the right document first and do not match unrelated Chinese text.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_search_chinese(store: Arc<dyn MemoryStore>) -> CheckResult {
    save_all(
        store.as_ref(),
        &[
            ("zh:1", "用户喜欢简洁的回答,不喜欢冗长的解释"),
            ("zh:2", "项目使用 Rust 编写,性能很好"),
            ("zh:3", "今天天气很好,适合散步"),
            ("zh:4", "本周冲刺目标是完成支付模块重构"),
            ("zh:5", "The user likes concise answers"),
            ("zh:6", "我最喜欢的茶是龙井"),
        ],
    )
    .await?;
    expect_top(store.as_ref(), "茶", "zh:6", &["zh:1", "zh:3", "zh:4"]).await?;
    expect_top(store.as_ref(), "冲", "zh:4", &["zh:1", "zh:3", "zh:6"]).await?;
    expect_top(store.as_ref(), "简洁回答", "zh:1", &["zh:3", "zh:4"]).await?;
    expect_top(store.as_ref(), "天气", "zh:3", &["zh:1", "zh:4"]).await?;
    expect_top(store.as_ref(), "支付模块重构", "zh:4", &["zh:1", "zh:3"]).await?;
    expect_top(store.as_ref(), "Rust 编写", "zh:2", &["zh:3"]).await?;
    expect_top(store.as_ref(), "用户喜欢什么样的回答?", "zh:1", &["zh:4"]).await?;
    expect_top(store.as_ref(), "concise answers", "zh:5", &["zh:1", "zh:3"]).await
}

/// `limit` caps results, `min_score` drops weak hits, filters restrict
/// candidates, and empty or punctuation-only queries return nothing.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_search_options(store: Arc<dyn MemoryStore>) -> CheckResult {
    let docs: Vec<(String, String)> = (0..8)
        .map(|i| {
            (
                format!("opt:{i}"),
                format!("harbour lighthouse keeper log entry {i}"),
            )
        })
        .collect();
    let refs: Vec<(&str, &str)> = docs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    save_all(store.as_ref(), &refs).await?;
    let hits = store.search("lighthouse", &SearchOptions::top_k(3)).await?;
    sorted_desc(&hits)?;
    ensure(hits.len() == 3, || {
        format!("top_k(3) returned {} hits", hits.len())
    })?;
    let all = store
        .search("lighthouse keeper", &SearchOptions::top_k(100))
        .await?;
    ensure(all.len() == 8, || {
        format!("all 8 documents match, got {}", all.len())
    })?;
    let best = all.first().map_or(0.0, |h| h.score);
    let strict = store
        .search(
            "lighthouse keeper",
            &SearchOptions::top_k(100).with_min_score(best * 2.0 + 1.0),
        )
        .await?;
    ensure(strict.is_empty(), || {
        format!("min_score above every score kept {:?}", hit_ids(&strict))
    })?;
    let filtered = SearchOptions::top_k(100).with_filter(MemoryFilter::all().until(at(2)));
    let early = store.search("lighthouse", &filtered).await?;
    let mut got = hit_ids(&early);
    got.sort_unstable();
    ensure(got == ["opt:0", "opt:1"], || {
        format!("search with until found {got:?}")
    })?;
    for blank in ["", "   ", " \t\n", "... !!! ???"] {
        let hits = store.search(blank, &SearchOptions::default()).await?;
        ensure(hits.is_empty(), || {
            format!(
                "query {blank:?} has no words but found {:?}",
                hit_ids(&hits)
            )
        })?;
    }
    Ok(())
}
