//! Hostile text: query syntax, SQL and other meta-characters in queries,
//! contents and scope names are literal data.

use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::long_term::{ListRequest, LongTermMemory, MemoryType, NewMemory};

/// Contents full of quotes, SQL, full-text operators, wildcards, emoji and
/// mixed scripts come back byte for byte and are searchable by their words;
/// queries such as `"a" OR b* NEAR(`, `' OR '1'='1` or `%_\` never fail and
/// are matched as plain words (so `"green" OR tea*` finds the tea entry);
/// scope names with SQL meta-characters are ordinary, isolated scopes.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_hostile_text(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let tea = m
        .save(NewMemory::new(MemoryType::User, "drink", "Likes green tea"))
        .await?
        .entry;
    let contents = [
        "Robert'); DROP TABLE memory; -- prefers \"quoted\" text",
        "a\" OR b* NEAR(c d) AND -e ^f {col}: xylophone",
        "100% of_the \\cases\\ use % and _ wildcards like LIKE 'x%'",
        "emoji 🍵🐼 and 中文混合 English 日本語 text",
        "$1 ?2 :name @param ]] [[ ${x} `tick` \u{2028} kangaroo",
    ];
    let mut ids = Vec::new();
    for text in contents {
        let saved = m
            .save(NewMemory::new(MemoryType::Reference, "", text))
            .await?;
        ensure(saved.created, || {
            format!("{text:?} was merged into another entry")
        })?;
        let got = m.get(saved.entry.id).await?.map(|e| e.content);
        ensure(got.as_deref() == Some(text), || {
            format!("content changed: saved {text:?}, read {got:?}")
        })?;
        ids.push(saved.entry.id);
    }
    for (query, index) in [
        ("robert", 0),
        ("xylophone", 1),
        ("wildcards", 2),
        ("中文混合", 3),
        ("kangaroo", 4),
    ] {
        let want = ids.get(index).copied();
        let first = m.search(query, 3).await?.first().map(|h| h.entry.id);
        ensure(first == want, || {
            format!("`{query}` must find the hostile entry {want:?}, found {first:?}")
        })?;
    }
    let long = (0..2_000)
        .map(|i| format!("w{i}"))
        .collect::<Vec<_>>()
        .join(" ");
    let cjk = "记忆系统".repeat(500);
    let queries = [
        "\"a\" OR b* NEAR(",
        "\"unterminated",
        "' OR '1'='1",
        "tea'; DROP TABLE memory; --",
        "\\%_",
        "%",
        "*",
        "NEAR(a b)",
        "(((",
        "tea AND",
        "NOT",
        "col:tea",
        "{tea}",
        "@tag:{x} | -y",
        "$1 ?1 :a",
        "]]; redis.call('FLUSHALL') --[[",
        "\u{0}",
        "🍵",
        long.as_str(),
        cjk.as_str(),
    ];
    for query in queries {
        m.search(query, 5)
            .await
            .map_err(|e| CheckFailure(format!("query {:?} failed: {e}", truncate(query))))?;
    }
    for query in [
        "\"green\" OR tea*",
        "tea AND",
        "NOT tea",
        "green -tea",
        "(tea) OR green*",
    ] {
        let first = m.search(query, 5).await?.first().map(|h| h.entry.id);
        ensure(first == Some(tea.id), || {
            format!("`{query}` must match the words green/tea literally, found {first:?}")
        })?;
    }
    let n = m.list(&ListRequest::all()).await?.len();
    ensure(n == contents.len() + 1, || {
        format!("hostile text changed the scope: {n} entries")
    })?;
    let odd = memory.scope("agent'; DROP TABLE memory; --", "user\" OR 1=1 %_")?;
    let saved = odd
        .save(NewMemory::new(MemoryType::User, "", "Likes green tea"))
        .await?;
    ensure(saved.created && saved.entry.id != tea.id, || {
        "a scope with meta-characters in its name must be its own scope".into()
    })?;
    let theirs = odd.list(&ListRequest::all()).await?;
    ensure(theirs.len() == 1, || {
        format!("the odd scope lists {} entries, want 1", theirs.len())
    })?;
    ensure(
        theirs.first().is_some_and(|e| {
            e.agent_name == "agent'; DROP TABLE memory; --" && e.user_id == "user\" OR 1=1 %_"
        }),
        || format!("scope names must be stored as given: {theirs:?}"),
    )?;
    let n = m.list(&ListRequest::all()).await?.len();
    ensure(n == contents.len() + 1, || {
        format!("another scope's save changed this one: {n} entries")
    })
}

fn truncate(text: &str) -> String {
    text.chars().take(40).collect()
}
