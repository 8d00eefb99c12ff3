//! Long-term schema version 4 (postings carry their entry's length, archive
//! flag and type): a version-3 database is upgraded on open with the copies
//! filled in, so searches rank, filter and score as before the upgrade; the
//! trigger keeps the copies current when entries change afterwards.
#![cfg(test)]

use crate::support;

use agcore_memory::long_term::{
    ArchivedFilter, LongTermMemory, MemoryType, MemoryUpdate, NewMemory, ScopedMemory,
    SearchRequest,
};
use agcore_memory_postgres::PostgresDatabase;

/// What a set of searches returns: names and scores, in order.
async fn searches(m: &ScopedMemory) -> Vec<Vec<(String, f64)>> {
    let requests = [
        SearchRequest::top_k(10),
        SearchRequest::top_k(10).of_type(MemoryType::Project),
        SearchRequest::top_k(10).archived(ArchivedFilter::Include),
        SearchRequest::top_k(10).archived(ArchivedFilter::Only),
        SearchRequest::top_k(2),
    ];
    let mut out = Vec::new();
    for query in ["garden tomatoes", "deadline review", "番茄 花园"] {
        for request in &requests {
            let hits = m.search_with(query, request).await.unwrap();
            out.push(
                hits.iter()
                    .map(|h| (h.entry.name.clone(), h.score))
                    .collect(),
            );
        }
    }
    out
}

/// The database as version 3 left it: postings without the copies.
const DOWNGRADE: &str = "
    DROP TRIGGER agcore_lt_postings_follow ON agcore_lt_entries;
    DROP FUNCTION agcore_lt_postings_follow();
    DROP INDEX agcore_lt_postings_scoring;
    ALTER TABLE agcore_lt_postings DROP COLUMN len, DROP COLUMN archived, DROP COLUMN memory_type;
    UPDATE agcore_schema SET version = 3 WHERE component = 'long_term';";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn version_three_postings_get_their_entries_columns_on_open() {
    let Some(url) = support::url() else { return };
    let schema = support::schema_name("ltupgrade");
    let open = || async {
        PostgresDatabase::builder()
            .schema(schema.clone())
            .pool_size(2)
            .open(&url)
            .await
            .unwrap()
    };
    let db = open().await;
    let m = LongTermMemory::new(db.long_term())
        .scope("agent", "u1")
        .unwrap();
    let notes = [
        (
            MemoryType::User,
            "tomatoes",
            "The garden has tomatoes and basil",
        ),
        (
            MemoryType::Project,
            "review",
            "Deadline for the design review is Friday",
        ),
        (
            MemoryType::Project,
            "garden plan",
            "Plan the garden beds before the deadline",
        ),
        (
            MemoryType::Reference,
            "zh",
            "花园里种了番茄和罗勒, garden notes",
        ),
        (
            MemoryType::Feedback,
            "old",
            "Old garden tomatoes feedback, long since archived",
        ),
    ];
    let mut ids = Vec::new();
    for (ty, name, text) in notes {
        ids.push(
            m.save(NewMemory::new(ty, name, text))
                .await
                .unwrap()
                .entry
                .id,
        );
    }
    m.update(ids[4], MemoryUpdate::new().archived(true))
        .await
        .unwrap();
    let before = searches(&m).await;
    assert!(before.iter().any(|hits| hits.len() > 1), "{before:?}");

    let client = db.pool().get().await.unwrap();
    client.batch_execute(DOWNGRADE).await.unwrap();
    let db = open().await;
    let versions = db.schema_versions().await.unwrap();
    assert!(
        versions.contains(&("long_term".to_owned(), 4)),
        "{versions:?}"
    );
    let m = LongTermMemory::new(db.long_term())
        .scope("agent", "u1")
        .unwrap();
    assert_eq!(searches(&m).await, before);

    // Changes after the upgrade reach the postings: a type, an archive flag
    // and a length (new text).
    m.update(ids[0], MemoryUpdate::new().memory_type(MemoryType::Project))
        .await
        .unwrap();
    m.update(ids[1], MemoryUpdate::new().archived(true))
        .await
        .unwrap();
    m.update(
        ids[2],
        MemoryUpdate::new().content("Plan the garden beds, the tomatoes and the review"),
    )
    .await
    .unwrap();
    let stale: i64 = client
        .query_one(
            "SELECT count(*) FROM agcore_lt_postings p JOIN agcore_lt_entries m ON m.id = p.entry_id
             WHERE (p.len, p.archived, p.memory_type) IS DISTINCT FROM (m.len, m.archived, m.memory_type)",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(stale, 0);
    let projects = m
        .search_with(
            "garden tomatoes",
            &SearchRequest::top_k(10).of_type(MemoryType::Project),
        )
        .await
        .unwrap();
    let mut names: Vec<&str> = projects.iter().map(|h| h.entry.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["garden plan", "tomatoes"]);
    drop(client);
    support::drop_schemas(&url, "ltupgrade").await;
}
