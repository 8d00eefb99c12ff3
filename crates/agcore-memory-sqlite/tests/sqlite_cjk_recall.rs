//! How CJK text is indexed, chosen by measured recall: our keyword bigrams in
//! a pre-tokenised column (what `SqliteStore` does) against FTS5's `trigram`
//! tokenizer and plain `unicode61` over the raw text, on a small mixed
//! Chinese + English set with judged answers.
//!
//! Run with `--nocapture` to see the figures.
#![cfg(test)]
#![allow(clippy::print_stdout, clippy::cast_precision_loss)]

use agcore_memory::{MemoryItem, MemoryStore, SearchOptions};
use agcore_memory_sqlite::SqliteStore;
use agcore_search::{extract_keywords, is_cjk, unique_keywords};
use rusqlite::Connection;

const K: usize = 5;

const DOCS: &[(&str, &str)] = &[
    ("c1", "用户喜欢喝咖啡,每天早上一杯拿铁。"),
    ("c2", "项目截止日期是下周五,需要完成支付模块重构。"),
    ("c3", "用户最常用的编程语言是Rust和Python。"),
    ("c4", "会议改到周三下午三点,在三楼会议室。"),
    ("c5", "用户对花生过敏,点餐时要注意。"),
    ("c6", "服务器部署在上海机房,使用Kubernetes管理。"),
    ("c7", "用户的女儿叫小雨,今年六岁。"),
    ("c8", "数据库从MySQL迁移到PostgreSQL已经完成。"),
    ("c9", "用户不喜欢冗长的解释,偏好简洁的回答。"),
    ("c10", "周末计划去杭州西湖旅游。"),
    ("c11", "记忆系统使用SQLite全文检索。"),
    ("c12", "用户的生日是三月十二日。"),
    ("e1", "The user prefers dark mode in every editor."),
    (
        "e2",
        "Deployment to production happens every Tuesday morning.",
    ),
    ("e3", "The API rate limit is 100 requests per minute."),
    (
        "e4",
        "User's favourite coffee is a flat white with oat milk.",
    ),
    (
        "e5",
        "The CI pipeline runs clippy and rustfmt before tests.",
    ),
    (
        "e6",
        "Backups of the database are stored in S3 for 30 days.",
    ),
    ("e7", "The user is learning Japanese and practices daily."),
    ("e8", "Meeting notes: migrate the payment service to Rust."),
    ("m1", "用户在北京工作,commute by subway 地铁 every day."),
    ("m2", "团队使用Slack沟通,daily standup at 10am."),
    ("d1", "今天天气很好,适合散步。"),
    ("d2", "咖啡机坏了,明天修理。"),
    ("d3", "上海的房价很高。"),
];

const QUERIES: &[(&str, &[&str])] = &[
    ("用户喜欢什么咖啡", &["c1"]),
    ("截止日期", &["c2"]),
    ("编程语言", &["c3"]),
    ("会议室在哪里", &["c4"]),
    ("过敏", &["c5"]),
    ("部署", &["c6"]),
    ("女儿叫什么名字", &["c7"]),
    ("数据库迁移", &["c8"]),
    ("回答风格", &["c9"]),
    ("西湖旅游", &["c10"]),
    ("全文检索", &["c11"]),
    ("生日", &["c12"]),
    ("dark mode", &["e1"]),
    ("when is the deployment", &["e2"]),
    ("rate limit", &["e3"]),
    ("coffee", &["e4"]),
    ("database backups", &["e6"]),
    ("北京 subway", &["m1"]),
    ("standup 沟通", &["m2"]),
    ("支付模块", &["c2"]),
    ("天气", &["d1"]),
    ("上海", &["c6", "d3"]),
];

/// Mean recall@K over the queries.
fn recall(results: &[Vec<String>]) -> f64 {
    let total: f64 = QUERIES
        .iter()
        .zip(results)
        .map(|((_, relevant), got)| {
            let top: Vec<&String> = got.iter().take(K).collect();
            relevant
                .iter()
                .filter(|r| top.iter().any(|g| g == *r))
                .count() as f64
                / relevant.len() as f64
        })
        .sum();
    total / QUERIES.len() as f64
}

/// A raw FTS5 table over the documents' text with `tokenizer`.
fn raw_index(tokenizer: &str) -> Connection {
    let conn = Connection::open_in_memory().unwrap();
    conn.execute_batch(&format!(
        "CREATE VIRTUAL TABLE t USING fts5(id UNINDEXED, content, tokenize = '{tokenizer}');"
    ))
    .unwrap();
    for (id, text) in DOCS {
        conn.execute("INSERT INTO t (id, content) VALUES (?1, ?2)", [id, text])
            .unwrap();
    }
    conn
}

fn raw_search(conn: &Connection, expression: Option<String>) -> Vec<String> {
    let Some(expression) = expression else {
        return Vec::new();
    };
    let mut stmt = conn
        .prepare("SELECT id FROM t WHERE t MATCH ?1 ORDER BY bm25(t) LIMIT 10")
        .unwrap();
    stmt.query_map([expression], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn or_of(terms: &[String]) -> Option<String> {
    (!terms.is_empty()).then(|| {
        terms
            .iter()
            .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ")
    })
}

/// Trigram's best query: words of ≥ 3 characters as substrings, CJK runs as
/// overlapping 3-character windows (runs of 1–2 characters cannot match:
/// trigram needs 3).
fn trigram_terms(query: &str) -> Vec<String> {
    let mut terms = Vec::new();
    let mut segment: Vec<char> = Vec::new();
    let flush = |segment: &mut Vec<char>, terms: &mut Vec<String>| {
        let cjk = segment.first().is_some_and(|c| is_cjk(*c));
        if cjk && segment.len() > 3 {
            terms.extend(segment.windows(3).map(|w| w.iter().collect::<String>()));
        } else if segment.len() >= 3 {
            terms.push(segment.iter().collect());
        }
        segment.clear();
    };
    let mut last_cjk = None;
    for c in query.chars() {
        if c.is_alphanumeric() {
            let cjk = is_cjk(c);
            if last_cjk.is_some_and(|l| l != cjk) {
                flush(&mut segment, &mut terms);
            }
            segment.push(c);
            last_cjk = Some(cjk);
        } else {
            flush(&mut segment, &mut terms);
            last_cjk = None;
        }
    }
    flush(&mut segment, &mut terms);
    terms
}

#[tokio::test(flavor = "multi_thread")]
async fn keyword_bigrams_recall_at_least_as_well_as_trigram() {
    let store = SqliteStore::open_in_memory().await.unwrap();
    store
        .save_many(
            DOCS.iter()
                .map(|(id, text)| MemoryItem::new(*id, *text))
                .collect(),
        )
        .await
        .unwrap();
    let mut bigram = Vec::new();
    for (query, _) in QUERIES {
        let hits = store
            .search(query, &SearchOptions::top_k(10))
            .await
            .unwrap();
        bigram.push(hits.into_iter().map(|h| h.item.id).collect::<Vec<_>>());
    }

    let trigram_conn = raw_index("trigram");
    let trigram: Vec<Vec<String>> = QUERIES
        .iter()
        .map(|(q, _)| raw_search(&trigram_conn, or_of(&trigram_terms(q))))
        .collect();

    let unicode_conn = raw_index("unicode61");
    let unicode: Vec<Vec<String>> = QUERIES
        .iter()
        .map(|(q, _)| raw_search(&unicode_conn, or_of(&unique_keywords(q))))
        .collect();

    let (rb, rt, ru) = (recall(&bigram), recall(&trigram), recall(&unicode));
    println!(
        "recall@{K} over {} queries / {} docs: keyword bigrams {rb:.3}, trigram {rt:.3}, unicode61 raw {ru:.3}",
        QUERIES.len(),
        DOCS.len()
    );
    assert!(rb >= rt, "bigrams {rb} < trigram {rt}");
    assert!(rb >= 0.95, "bigram recall {rb}");
    // Sanity of the comparison itself: trigram cannot match two-character words.
    assert!(raw_search(&trigram_conn, or_of(&trigram_terms("过敏"))).is_empty());
    assert!(!extract_keywords("过敏").is_empty());
}
