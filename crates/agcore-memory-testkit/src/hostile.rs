//! Hostile text: full-text query syntax, SQL meta-characters, emoji, mixed
//! scripts, very large content. Stored verbatim, searched as literal text.

use std::sync::Arc;

use super::{CheckResult, at, ensure, expect_invalid, hit_ids};
use agcore_memory::{MAX_CONTENT_BYTES, MemoryFilter, MemoryItem, MemoryStore, SearchOptions};

async fn round_trip(store: &dyn MemoryStore, docs: &[(&str, &str)]) -> CheckResult {
    for (i, (id, text)) in docs.iter().enumerate() {
        let t = i64::try_from(i).unwrap_or(0);
        store
            .save(MemoryItem::new(*id, *text).with_created_at(at(t)))
            .await?;
    }
    for (id, text) in docs {
        let got = store.get(id).await?.map(|i| i.content);
        ensure(got.as_deref() == Some(*text), || {
            format!("{id} must be stored verbatim: saved {text:?}, read {got:?}")
        })?;
    }
    Ok(())
}

async fn expect_found(
    store: &dyn MemoryStore,
    query: &str,
    want: &str,
    first: bool,
) -> CheckResult {
    let hits = store.search(query, &SearchOptions::top_k(20)).await?;
    let got = hit_ids(&hits);
    let ok = if first {
        got.first() == Some(&want)
    } else {
        got.contains(&want)
    };
    ensure(ok, || {
        format!(
            "query {query:?}: expected {want}{}, got {got:?}",
            if first { " first" } else { "" }
        )
    })
}

/// Text full of FTS5/Lucene/MySQL query syntax and SQL injection attempts is
/// stored verbatim; using it as a query is never an error and finds it.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_query_syntax_is_literal(store: Arc<dyn MemoryStore>) -> CheckResult {
    let docs = [
        (
            "hostile:1",
            "He said \"hello world\" AND she said * - : OR NEAR(alpha beta) ^boost column:value",
        ),
        ("hostile:2", "'; DROP TABLE memories; -- and 1=1 OR ''='"),
        (
            "hostile:3",
            "Robert'); DELETE FROM memory_fts; -- little bobby tables",
        ),
        ("hostile:4", "unbalanced \"quote and (paren {brace [bracket"),
        (
            "hostile:5",
            "100% match_all \\ backslash % _ wildcard NOT negated -excluded +required",
        ),
        ("hostile:6", "  leading and trailing whitespace kept \n\t"),
    ];
    round_trip(store.as_ref(), &docs).await?;
    for (id, text) in &docs {
        expect_found(store.as_ref(), text, id, false).await?;
    }
    expect_found(store.as_ref(), "DROP TABLE", "hostile:2", true).await?;
    expect_found(store.as_ref(), "NEAR(alpha beta)", "hostile:1", true).await?;
    expect_found(store.as_ref(), "\"bobby tables", "hostile:3", true).await?;
    expect_found(store.as_ref(), "match_all wildcard", "hostile:5", true).await?;
    let syntax = [
        "\"",
        "*",
        "-",
        ":",
        "AND",
        "OR",
        "NOT",
        "NEAR(",
        "NEAR(a b",
        "^",
        "(",
        ")",
        "{",
        "}",
        "'",
        ";",
        "--",
        "\\",
        "%",
        "_",
        "a:b",
        "-x",
        "x*",
        "\"unterminated",
        "AND OR NOT",
        "'; --",
        "\u{0}",
        "column:value*",
    ];
    for query in syntax {
        store
            .search(query, &SearchOptions::default())
            .await
            .map_err(|e| {
                super::CheckFailure(format!(
                    "query {query:?} must be literal text, got error {e}"
                ))
            })?;
    }
    let n = store.count(&MemoryFilter::all()).await?;
    ensure(n == docs.len(), || {
        format!("hostile text changed the store: count is {n}")
    })
}

/// Emoji (including ZWJ sequences), Cyrillic, Japanese, accented Latin and
/// mixed scripts are stored verbatim and each script is searchable.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_emoji_and_mixed_scripts(store: Arc<dyn MemoryStore>) -> CheckResult {
    let docs = [
        ("mix:1", "🚀 Rust 发布了新版本 🎉"),
        ("mix:2", "Привет мир, новая версия"),
        ("mix:3", "日本語のテキストとEnglish混在"),
        ("mix:4", "👨‍👩‍👧‍👦 family emoji with zero width joiners"),
        ("mix:5", "Ünïcödé façade naïve café"),
        ("mix:6", "🙂🙃😉"),
    ];
    round_trip(store.as_ref(), &docs).await?;
    expect_found(store.as_ref(), "Rust", "mix:1", true).await?;
    expect_found(store.as_ref(), "新版本", "mix:1", true).await?;
    expect_found(store.as_ref(), "версия", "mix:2", true).await?;
    expect_found(store.as_ref(), "ПРИВЕТ", "mix:2", true).await?;
    expect_found(store.as_ref(), "テキスト", "mix:3", true).await?;
    expect_found(store.as_ref(), "façade café", "mix:5", true).await?;
    expect_found(store.as_ref(), "family joiners", "mix:4", true).await?;
    for query in ["🚀", "👨‍👩‍👧‍👦", "🙂🙃", "\u{200d}", "\u{feff}", "é"] {
        store.search(query, &SearchOptions::default()).await?;
    }
    Ok(())
}

/// A 3 MB item round-trips and is searchable; content over
/// [`MAX_CONTENT_BYTES`] is `InvalidInput` and writes nothing.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_large_content(store: Arc<dyn MemoryStore>) -> CheckResult {
    let filler = "lorem ipsum dolor sit amet 记忆系统 ".repeat(40_000);
    let big = format!("{filler} needleword {filler}");
    ensure(big.len() > 3_000_000, || {
        format!("test content is only {} bytes", big.len())
    })?;
    store.save(MemoryItem::new("big:1", big.clone())).await?;
    store
        .save(MemoryItem::new("big:2", "a small neighbour about needles"))
        .await?;
    let got = store.get("big:1").await?.map(|i| i.content);
    ensure(got.as_deref() == Some(big.as_str()), || {
        "3 MB content not read back verbatim".to_owned()
    })?;
    expect_found(store.as_ref(), "needleword", "big:1", true).await?;
    let too_big = "x".repeat(MAX_CONTENT_BYTES + 1);
    expect_invalid(
        "content over MAX_CONTENT_BYTES",
        store.save(MemoryItem::new("big:3", too_big)).await,
    )?;
    let leaked = store.get("big:3").await?;
    ensure(leaked.is_none(), || {
        "rejected content must not be written".to_owned()
    })
}

/// Memories whose text has no index term (only stop words or punctuation)
/// are stored, replaced and deleted like any other: searches never find
/// them, a replacement with words is found and one without words is no
/// longer found, and deleting them leaves the store consistent.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_text_without_terms(store: Arc<dyn MemoryStore>) -> CheckResult {
    let docs = [
        ("empty:1", "the and of"),
        ("empty:2", "!!! ... ???"),
        ("empty:3", "。，！"),
        ("empty:4", "a violin in the attic"),
    ];
    round_trip(store.as_ref(), &docs).await?;
    let options = SearchOptions::top_k(10);
    let hits = store.search("the and of", &options).await?;
    ensure(hits.is_empty(), || {
        format!("stop words alone find nothing: {:?}", hit_ids(&hits))
    })?;
    store
        .save(MemoryItem::new("empty:1", "the violin").with_created_at(at(0)))
        .await?;
    store
        .save(MemoryItem::new("empty:4", "of the").with_created_at(at(3)))
        .await?;
    let hits = store.search("violin", &options).await?;
    ensure(hit_ids(&hits) == ["empty:1"], || {
        format!(
            "after the replacements `violin` finds empty:1 only: {:?}",
            hit_ids(&hits)
        )
    })?;
    for (id, _) in &docs[1..] {
        store.delete(id).await?;
    }
    let count = store.count(&MemoryFilter::default()).await?;
    ensure(count == 1, || format!("one memory left, counted {count}"))?;
    let hits = store.search("violin", &options).await?;
    ensure(hit_ids(&hits) == ["empty:1"], || {
        format!("after the deletions: {:?}", hit_ids(&hits))
    })
}
