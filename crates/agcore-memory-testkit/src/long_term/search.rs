//! Scoped BM25 search: ranking in English and Chinese, indexed fields, ties,
//! limits and re-indexing after changes.

use crate::{CheckResult, ensure};
use agcore_memory::long_term::{LongTermMemory, MemoryType, MemoryUpdate, NewMemory, ScopedMemory};

/// Saves `(type, name, content)` entries; returns their ids in order.
async fn seed(
    m: &ScopedMemory,
    entries: &[(MemoryType, &str, &str)],
) -> Result<Vec<i64>, agcore_memory::MemoryError> {
    let mut ids = Vec::with_capacity(entries.len());
    for (ty, name, content) in entries {
        ids.push(m.save(NewMemory::new(*ty, *name, *content)).await?.entry.id);
    }
    Ok(ids)
}

/// For each `(query, index)`, the entry `ids[index]` ranks first; hits are
/// best first with finite positive scores, at most `limit`.
async fn expect_first(m: &ScopedMemory, ids: &[i64], cases: &[(&str, usize)]) -> CheckResult {
    for (query, index) in cases {
        let want = ids.get(*index).copied();
        let hits = m.search(query, 3).await?;
        let first = hits.first().map(|h| h.entry.id);
        ensure(first.is_some() && first == want, || {
            format!("`{query}`: first hit {first:?}, want {want:?}")
        })?;
        ensure(hits.len() <= 3, || {
            format!("`{query}`: {} hits for limit 3", hits.len())
        })?;
        ensure(
            hits.iter().all(|h| h.score.is_finite() && h.score > 0.0),
            || format!("`{query}`: scores must be finite and > 0"),
        )?;
        ensure(
            hits.iter()
                .zip(hits.iter().skip(1))
                .all(|(a, b)| a.score >= b.score),
            || format!("`{query}`: hits not best first"),
        )?;
    }
    Ok(())
}

/// English: the relevant entry ranks first for several queries, matching on
/// words of the content or the title, whatever the case.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_search_english(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let ids = seed(
        &m,
        &[
            (
                MemoryType::User,
                "drink",
                "Alice drinks green tea every afternoon",
            ),
            (
                MemoryType::Project,
                "database",
                "The project runs on PostgreSQL 15",
            ),
            (
                MemoryType::Feedback,
                "style",
                "Answers should be short and in plain English",
            ),
            (
                MemoryType::Project,
                "meeting",
                "Team meeting every Friday at 3 pm",
            ),
            (
                MemoryType::Reference,
                "docs",
                "Design docs live in the team wiki",
            ),
        ],
    )
    .await?;
    expect_first(
        &m,
        &ids,
        &[
            ("green tea", 0),
            ("GREEN TEA", 0),
            ("which database does the project use", 1),
            ("postgresql", 1),
            ("keep the answers short", 2),
            ("is there a meeting on friday", 3),
            ("team wiki", 4),
        ],
    )
    .await
}

/// Chinese (CJK text as character bigrams, each character also a unigram)
/// and mixed Chinese–English: the relevant entry ranks first, for queries
/// of one character (`茶`) too.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_search_chinese(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "用户一")?;
    let ids = seed(
        &m,
        &[
            (MemoryType::User, "饮品", "用户喜欢喝绿茶，每天下午一杯"),
            (
                MemoryType::Project,
                "数据库",
                "项目的数据库是 PostgreSQL 15，下个月迁移",
            ),
            (
                MemoryType::Feedback,
                "语言",
                "用户希望用中文交流，回答要简短",
            ),
            (MemoryType::Project, "会议", "周五下午三点开团队例会"),
        ],
    )
    .await?;
    expect_first(
        &m,
        &ids,
        &[
            ("绿茶", 0),
            ("她喜欢喝什么", 0),
            ("数据库迁移", 1),
            ("PostgreSQL 迁移", 1),
            ("中文交流", 2),
            ("团队例会", 3),
            ("茶", 0),
            ("库", 1),
        ],
    )
    .await
}

/// Name and description are searched as well as the content; entries with
/// the same words tie and then go by id; a query without keywords (stop
/// words, punctuation, blank) finds nothing; updates and deletes re-index:
/// the old text is no longer found, the new one is.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) describing the first broken expectation.
pub async fn check_search_fields_and_ties(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let named = m
        .save(NewMemory::new(
            MemoryType::User,
            "zebra",
            "Striped animal seen",
        ))
        .await?
        .entry;
    let described = m
        .save(
            NewMemory::new(MemoryType::User, "fact", "Some plain fact")
                .with_description("mentions giraffe"),
        )
        .await?
        .entry;
    let tie_a = m
        .save(NewMemory::new(MemoryType::User, "tie", "alpha beta gamma"))
        .await?
        .entry;
    let tie_b = m
        .save(NewMemory::new(MemoryType::User, "tie", "gamma beta alpha"))
        .await?
        .entry;
    let moving = m
        .save(NewMemory::new(
            MemoryType::User,
            "wildlife",
            "Quokka sighting on the island",
        ))
        .await?
        .entry;
    let first = |hits: &[agcore_memory::long_term::ScoredEntry]| hits.first().map(|h| h.entry.id);
    let hits = m.search("ZEBRA", 5).await?;
    ensure(first(&hits) == Some(named.id), || {
        "the title must be searched".into()
    })?;
    let hits = m.search("giraffe", 5).await?;
    ensure(first(&hits) == Some(described.id), || {
        "the description must be searched".into()
    })?;
    let hits = m.search("alpha", 5).await?;
    let got: Vec<(i64, f64)> = hits.iter().map(|h| (h.entry.id, h.score)).collect();
    let (lo, hi) = (tie_a.id.min(tie_b.id), tie_a.id.max(tie_b.id));
    let tied = matches!(got.as_slice(), [(a, s), (b, t)] if *a == lo && *b == hi && (s - t).abs() <= 1e-9 * s.abs());
    ensure(tied, || {
        format!("equal entries must tie, lower id first: {got:?}")
    })?;
    let one = m.search("alpha beta", 1).await?;
    ensure(one.len() == 1, || {
        format!("limit 1 gave {} hits", one.len())
    })?;
    for query in ["the and of", "", "   ", "!!! ??? ...", "的 了 是"] {
        let hits = m.search(query, 5).await?;
        ensure(hits.is_empty(), || {
            format!(
                "query {query:?} has no keywords but found {} hits",
                hits.len()
            )
        })?;
    }
    ensure(m.search("unrelated xylophone", 5).await?.is_empty(), || {
        "a query matching nothing must find nothing".into()
    })?;
    m.update(
        moving.id,
        MemoryUpdate::new().content("Wombat sighting on the island"),
    )
    .await?;
    ensure(m.search("quokka", 5).await?.is_empty(), || {
        "the old text is still searched after an update".into()
    })?;
    let hits = m.search("wombat", 5).await?;
    ensure(first(&hits) == Some(moving.id), || {
        "the new text must be searched".into()
    })?;
    m.update(
        described.id,
        MemoryUpdate::new().description("mentions okapi"),
    )
    .await?;
    ensure(m.search("giraffe", 5).await?.is_empty(), || {
        "an old description is still searched".into()
    })?;
    let hits = m.search("okapi", 5).await?;
    ensure(first(&hits) == Some(described.id), || {
        "a new description must be searched".into()
    })?;
    m.delete(moving.id).await?;
    ensure(m.search("wombat", 5).await?.is_empty(), || {
        "a deleted entry is still searched".into()
    })
}
