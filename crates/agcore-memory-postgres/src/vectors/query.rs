//! The SQL of [`PostgresVectors`](super::PostgresVectors).

use agcore_memory::vector::{VectorFilter, VectorHit, VectorKey, VectorRecord, rank_order};
use deadpool_postgres::{Client, Pool};

use super::text::to_text;
use crate::error::PostgresError;

const FILTER: &str =
    "($1::text IS NULL OR namespace = $1) AND ($2::text IS NULL OR starts_with(id, $2))";

/// Inserts or replaces `records` in one statement (one transaction).
pub(super) async fn upsert(
    pool: &Pool,
    ext: &str,
    records: &[VectorRecord],
) -> Result<(), PostgresError> {
    let client = pool.get().await?;
    let namespaces: Vec<&str> = records.iter().map(|r| r.namespace.as_str()).collect();
    let ids: Vec<&str> = records.iter().map(|r| r.id.as_str()).collect();
    let vectors: Vec<String> = records.iter().map(|r| to_text(&r.vector)).collect();
    let hashes: Vec<&str> = records.iter().map(|r| r.content_hash.as_str()).collect();
    client
        .execute(
            &format!(
                "INSERT INTO agcore_vectors (namespace, id, embedding, content_hash)
                 SELECT n, i, v::{ext}.vector, h FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(n, i, v, h)
                 ON CONFLICT (namespace, id) DO UPDATE
                 SET embedding = excluded.embedding, content_hash = excluded.content_hash"
            ),
            &[&namespaces, &ids, &vectors, &hashes],
        )
        .await?;
    Ok(())
}

/// Deletes `ids` of `namespace`; returns how many rows existed.
pub(super) async fn delete(
    pool: &Pool,
    namespace: &str,
    ids: &[String],
) -> Result<usize, PostgresError> {
    let client = pool.get().await?;
    let n = client
        .execute(
            "DELETE FROM agcore_vectors WHERE namespace = $1 AND id = ANY($2)",
            &[&namespace, &ids],
        )
        .await?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// Content hashes of `ids`, in their order.
pub(super) async fn content_hashes(
    pool: &Pool,
    namespace: &str,
    ids: &[String],
) -> Result<Vec<Option<String>>, PostgresError> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT id, content_hash FROM agcore_vectors WHERE namespace = $1 AND id = ANY($2)",
            &[&namespace, &ids],
        )
        .await?;
    let found: foldhash::HashMap<String, String> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    Ok(ids.iter().map(|id| found.get(id).cloned()).collect())
}

/// Stored vectors of `ids`, in their order (pgvector casts `vector` to `real[]`).
pub(super) async fn vectors(
    pool: &Pool,
    namespace: &str,
    ids: &[String],
) -> Result<Vec<Option<Vec<f32>>>, PostgresError> {
    let client = pool.get().await?;
    let rows = client
        .query(
            "SELECT id, embedding::real[] FROM agcore_vectors WHERE namespace = $1 AND id = ANY($2)",
            &[&namespace, &ids],
        )
        .await?;
    let mut found: foldhash::HashMap<String, Vec<f32>> =
        rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    Ok(ids.iter().map(|id| found.remove(id)).collect())
}

/// Rows passing `filter`.
pub(super) async fn count(client: &Client, filter: &VectorFilter) -> Result<usize, PostgresError> {
    let row = client
        .query_one(
            &format!("SELECT count(*) FROM agcore_vectors WHERE {FILTER}"),
            &[&filter.namespace, &filter.id_prefix],
        )
        .await?;
    Ok(usize::try_from(row.get::<_, i64>(0)).unwrap_or(0))
}

/// The search rule of the module docs.
pub(super) async fn search(
    pool: &Pool,
    ext: &str,
    query: &[f32],
    k: usize,
    filter: &VectorFilter,
) -> Result<Vec<VectorHit>, PostgresError> {
    let mut client = pool.get().await?;
    let passing = count(&client, filter).await?;
    let limit = i64::try_from(k).unwrap_or(i64::MAX);
    let q = to_text(query);
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
        [&filter.namespace, &filter.id_prefix, &q, &limit];
    let exact = i64::try_from(passing).unwrap_or(i64::MAX) <= super::PostgresVectors::EXACT_LIMIT;
    let rows = if exact {
        client
            .query(
                &format!(
                    "SELECT namespace, id, (1 - (embedding OPERATOR({ext}.<=>) $3::text::{ext}.vector))::float4 AS score, content_hash
                     FROM agcore_vectors WHERE {FILTER}
                     ORDER BY score DESC, namespace COLLATE \"C\", id COLLATE \"C\" LIMIT $4"
                ),
                &params,
            )
            .await?
    } else {
        let tx = client.transaction().await?;
        let ef = k.saturating_mul(2).clamp(64, 1000);
        tx.batch_execute(&format!(
            "SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {ef}"
        ))
        .await?;
        let rows = tx
            .query(
                &format!(
                    "SELECT namespace, id, (1 - (embedding OPERATOR({ext}.<=>) $3::text::{ext}.vector))::float4, content_hash
                     FROM agcore_vectors WHERE {FILTER}
                     ORDER BY embedding OPERATOR({ext}.<=>) $3::text::{ext}.vector LIMIT $4"
                ),
                &params,
            )
            .await?;
        tx.commit().await?;
        rows
    };
    let mut hits: Vec<(f32, VectorKey, String)> = rows
        .iter()
        .map(|r| {
            (
                r.get::<_, f32>(2),
                VectorKey::new(r.get::<_, String>(0), r.get::<_, String>(1)),
                r.get::<_, String>(3),
            )
        })
        .collect();
    hits.sort_by(|a, b| rank_order(a.0, &a.1, b.0, &b.1));
    Ok(hits
        .into_iter()
        .map(|(score, key, hash)| VectorHit {
            namespace: key.namespace,
            id: key.id,
            score,
            content_hash: Some(hash),
        })
        .collect())
}
