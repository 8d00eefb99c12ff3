//! BM25F search: the query terms' postings (`term → id → "tf:len"`, or
//! `"tf:len:ctf:clen"` for a term in the item's context field) and the
//! collection statistics in one pipelined round trip, scored here with
//! `Bm25::idf` (document frequency counting either field) and
//! [`Bm25F::tf_part`] (k1 = 1.2, b = 0.75, each field normalised by its own
//! mean length — the context field's over the items in a sequence — the
//! context weighted) like `InMemoryStore`, `SqliteStore` and
//! `PostgresStore`, best first with ties by id; items are then read in rank
//! order until `limit` pass the filter ([`crate::RedisStore`]'s search).

use std::collections::HashMap;

use agcore_memory::SearchOptions;
use agcore_search::collection::mean_length;
use agcore_search::{Bm25, Bm25F, capped_query_terms};
use redis::aio::ConnectionManager;

use crate::error::{Result, storage};
use crate::items::key;

/// `(documents, total length, items in a sequence, total context length)`.
type Stats = (Option<f64>, Option<f64>, Option<f64>, Option<f64>);
/// One term's postings: id → `tf:len[:ctf:clen]`.
type Postings = HashMap<String, String>;

/// A posting's `(tf, len, context tf, context len)`.
fn parse_posting(value: &str) -> Option<(f64, f64, f64, f64)> {
    let mut parts = value.split(':').map(str::parse::<f64>);
    let (tf, len) = (parts.next()?.ok()?, parts.next()?.ok()?);
    let (ctf, clen) = match (parts.next(), parts.next()) {
        (Some(ctf), Some(clen)) => (ctf.ok()?, clen.ok()?),
        (None, None) => (0.0, 0.0),
        _ => return None,
    };
    parts.next().is_none().then_some((tf, len, ctf, clen))
}

/// The index a search reads: a connection, the store's key prefix and the
/// context field's weight (0 without one).
pub(crate) struct Index<'a> {
    pub(crate) conn: ConnectionManager,
    pub(crate) prefix: &'a str,
    pub(crate) weight: f64,
}

/// Ids of the items matching `query` with their BM25F scores, best first
/// (ties by id), those below `options.min_score` left out.
pub(crate) async fn rank(
    index: Index<'_>,
    query: &str,
    options: &SearchOptions,
) -> Result<Vec<(String, f64)>> {
    let terms = capped_query_terms(query);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    let mut pipe = redis::pipe();
    pipe.cmd("HMGET")
        .arg(key(index.prefix, "stats"))
        .arg("docs")
        .arg("len")
        .arg("grouped")
        .arg("clen");
    for term in &terms {
        pipe.hgetall(key(index.prefix, &format!("t:{term}")));
    }
    let mut conn = index.conn;
    let (stats, postings): (Stats, Vec<Postings>) = {
        let mut replies: Vec<redis::Value> = pipe.query_async(&mut conn).await?;
        if replies.is_empty() {
            return Ok(Vec::new());
        }
        let parse = |e: redis::ParsingError| storage(format!("redis: unexpected reply: {e}"));
        let stats = redis::from_redis_value(replies.remove(0)).map_err(parse)?;
        let postings = replies
            .into_iter()
            .map(redis::from_redis_value)
            .collect::<Result<_, _>>()
            .map_err(parse)?;
        (stats, postings)
    };
    let docs = stats.0.unwrap_or(0.0);
    let fields = Bm25F {
        bm25: Bm25::default(),
        avg_len: mean_length(stats.1.unwrap_or(0.0), docs),
        avg_context_len: mean_length(stats.3.unwrap_or(0.0), stats.2.unwrap_or(0.0)),
        weight: index.weight,
    };
    let mut scores: HashMap<&str, f64> = HashMap::new();
    for list in &postings {
        if list.is_empty() {
            continue;
        }
        let idf = Bm25::idf(docs, list.len() as f64);
        for (id, value) in list {
            if let Some((tf, len, ctf, clen)) = parse_posting(value) {
                *scores.entry(id.as_str()).or_insert(0.0) +=
                    idf * fields.tf_part(tf, len, ctf, clen);
            }
        }
    }
    let mut ranked: Vec<(&str, f64)> = scores
        .into_iter()
        .filter(|(_, s)| options.min_score.is_none_or(|min| *s >= min))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    Ok(ranked
        .into_iter()
        .map(|(id, score)| (id.to_owned(), score))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_parse() {
        assert_eq!(parse_posting("2:14"), Some((2.0, 14.0, 0.0, 0.0)));
        assert_eq!(parse_posting("0:3:2:9"), Some((0.0, 3.0, 2.0, 9.0)));
        assert_eq!(parse_posting("x"), None);
        assert_eq!(parse_posting("1:2:3"), None);
        assert_eq!(parse_posting("1:2:3:4:5"), None);
    }
}
