//! The context field's fixed-scenario checks: each against the reference
//! `InMemoryStore` ([`Pair`]) and, where the ranking is obvious, against a
//! ranking written out by hand.

use std::future::Future;
use std::sync::Arc;

use super::{Pair, hit_ids};
use crate::{CheckResult, at, ensure, turn};
use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore};

/// A conversation of two sessions and a memory in none.
fn conversation() -> Vec<MemoryItem> {
    vec![
        turn("a1", "s1", 1, "Did you finish the marathon in Boston?"),
        turn("a2", "s1", 2, "Yes, last Saturday! My legs still hurt."),
        turn("b1", "s2", 3, "I adopted a puppy named Oscar."),
        MemoryItem::new("note", "The user likes marathon training plans").with_created_at(at(4)),
    ]
}

/// Fails unless the hits of `query` in `pair` are `want`, in order.
async fn expect(pair: &Pair, query: &str, want: &[&str]) -> CheckResult {
    let hits = pair.search(query).await?;
    ensure(hit_ids(&hits) == want, || {
        format!(
            "query {query:?}: expected {want:?}, got {:?}",
            hit_ids(&hits)
        )
    })
}

/// A reply ("Yes, last Saturday!") is found by the question before it, below
/// the memories holding the words themselves; without a field it is not.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_reply_through_question<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let pair = Pair::new(make, Some(ContextField::default()), EvictionConfig::none()).await;
    pair.save_many(conversation()).await?;
    expect(
        &pair,
        "When did she run the marathon?",
        &["a1", "note", "a2"],
    )
    .await?;
    expect(&pair, "Saturday legs", &["a2", "a1"]).await?;
    pair.ranks_alike(&["puppy legs", "oscar", "boston saturday"])
        .await?;

    let plain = Pair::new(make, None, EvictionConfig::none()).await;
    plain.save_many(conversation()).await?;
    expect(&plain, "marathon", &["a1", "note"]).await?;
    expect(&plain, "Saturday legs", &["a2"]).await?;
    plain.ranks_alike(&["saturday puppy", "boston"]).await
}

/// Memories without a sequence (no `session`, or an array or `null`
/// there) rank exactly as with no context field at all.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_plain_items<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let items: Vec<MemoryItem> = [
        ("n0", "red apples", serde_json::json!({})),
        (
            "n1",
            "green apples and pears",
            serde_json::json!({"session": null}),
        ),
        ("n2", "pears", serde_json::json!({"session": ["s"]})),
        ("n3", "apple pie", serde_json::json!({"topic": "s"})),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (id, text, meta))| {
        MemoryItem::new(id, text)
            .with_metadata(meta)
            .with_created_at(at(i64::try_from(i).unwrap_or(0)))
    })
    .collect();
    let with = Pair::new(make, Some(ContextField::default()), EvictionConfig::none()).await;
    let without = Pair::new(make, None, EvictionConfig::none()).await;
    for pair in [&with, &without] {
        pair.save_many(items.clone()).await?;
    }
    for query in ["apples", "pears apple", "green"] {
        let (a, b) = (with.search(query).await?, without.search(query).await?);
        super::same_hits(&a, &b, query)?;
    }
    Ok(())
}

/// A window of 2 reaches the turn two away; another weight changes the
/// scores of context matches only.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_window_and_weight<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let turns = || {
        vec![
            turn("w1", "s", 1, "where did you park the bicycle"),
            turn("w2", "s", 2, "let me think"),
            turn("w3", "s", 3, "behind the library"),
            turn("w4", "s", 4, "thanks, see you tomorrow"),
        ]
    };
    let one = Pair::new(make, Some(ContextField::default()), EvictionConfig::none()).await;
    one.save_many(turns()).await?;
    expect(&one, "bicycle", &["w1", "w2"]).await?;
    let two = ContextField::default().with_window(2).with_weight(0.25);
    let two = Pair::new(make, Some(two), EvictionConfig::none()).await;
    two.save_many(turns()).await?;
    expect(&two, "bicycle", &["w1", "w2", "w3"]).await?;
    two.ranks_alike(&["library tomorrow", "think", "park library"])
        .await
}

/// Chinese turns lend their character bigrams to their neighbours.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_chinese_turns<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let pair = Pair::new(make, Some(ContextField::default()), EvictionConfig::none()).await;
    pair.save_many(vec![
        turn("z1", "会话", 1, "你去过长城吗"),
        turn("z2", "会话", 2, "去年夏天去过"),
        turn("z3", "别的", 3, "今天下雨"),
    ])
    .await?;
    expect(&pair, "长城", &["z1", "z2"]).await?;
    expect(&pair, "夏天", &["z2", "z1"]).await?;
    expect(&pair, "下雨", &["z3"]).await
}

/// The field follows deletions, replacements, moves to another sequence and
/// changed times.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_field_follows_writes<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let pair = Pair::new(make, Some(ContextField::default()), EvictionConfig::none()).await;
    pair.save_many(vec![
        turn("t1", "s", 1, "where is the violin"),
        turn("t2", "s", 2, "in the attic"),
        turn("t3", "s", 3, "thanks a lot"),
    ])
    .await?;
    expect(&pair, "violin", &["t1", "t2"]).await?;
    pair.delete("t1").await?;
    expect(&pair, "violin", &[]).await?;
    pair.save(turn("t1", "s", 1, "where is the cello")).await?;
    expect(&pair, "cello", &["t1", "t2"]).await?;
    expect(&pair, "violin", &[]).await?;
    expect(&pair, "thanks", &["t3", "t2"]).await?;
    // Moving t3 to another session takes it out of t2's context.
    pair.save(turn("t3", "other", 3, "thanks a lot")).await?;
    expect(&pair, "thanks", &["t3"]).await?;
    // A later time puts t1 after t2: t1's neighbour is still t2 only.
    pair.save(turn("t1", "s", 9, "where is the cello")).await?;
    expect(&pair, "attic", &["t2", "t1"]).await?;
    // A turn saved between two others becomes the neighbour of both.
    pair.save(turn("t4", "s", 5, "near the old piano")).await?;
    expect(&pair, "piano", &["t4", "t1", "t2"]).await?;
    expect(&pair, "attic", &["t2", "t4"]).await
}

/// Capacity eviction of a turn takes it out of its neighbour's field, and
/// a turn evicted by its own save never enters one.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_eviction<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    let pair = Pair::new(
        make,
        Some(ContextField::default()),
        EvictionConfig::capacity(2, 1),
    )
    .await;
    for (n, text) in ["violin lessons", "in the attic", "thanks"]
        .iter()
        .enumerate()
    {
        let seq = i64::try_from(n).unwrap_or(0);
        pair.save(turn(&format!("t{n}"), "s", seq, text)).await?;
    }
    expect(&pair, "violin", &[]).await?;
    expect(&pair, "attic", &["t1", "t2"]).await?;
    // A turn older than every other is evicted by its own save: it never
    // becomes anyone's neighbour.
    pair.save(turn("t3", "s", -1, "cello practice")).await?;
    expect(&pair, "cello", &[]).await?;
    expect(&pair, "attic", &["t1", "t2"]).await
}
