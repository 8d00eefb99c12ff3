//! Reproducible bench data (seeded), cached SQLite datasets and latency percentiles.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agcore_memory::{MemoryItem, MemoryStore, SqliteStore};
use chrono::{DateTime, Utc};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

/// Data set sizes; 1M only with `AGCORE_BENCH_1M=1` (a run takes several minutes).
pub fn sizes() -> Vec<usize> {
    let mut sizes = vec![10_000, 100_000];
    if std::env::var("AGCORE_BENCH_1M").is_ok_and(|v| v == "1") {
        sizes.push(1_000_000);
    }
    sizes
}

const ROOTS: &[&str] = &[
    "user", "prefer", "answer", "project", "deadline", "meeting", "coffee", "rust", "python",
    "deploy", "server", "database", "backup", "review", "release", "budget", "travel", "family",
    "birthday", "doctor", "music", "garden", "kitchen", "report", "invoice", "contract", "design",
    "network", "latency", "memory", "search", "index", "ticket", "customer", "feedback", "editor",
    "theme", "language", "library", "schedule", "weekend", "holiday", "morning", "evening",
    "office", "remote", "laptop", "phone", "email", "password", "account", "payment", "order",
    "shipping", "weather", "football", "novel", "movie", "recipe", "allergy", "exercise",
    "running", "sleep", "vitamin", "printer", "camera", "window", "cloud", "cluster", "kernel",
];
const SUFFIXES: &[&str] = &[
    "", "s", "ing", "ed", "er", "ly", "ion", "al", "ity", "ment", "ness", "ful", "less", "ive",
    "ous", "ize", "ism", "ist", "ward", "ship", "hood", "dom", "able", "ant", "ure", "ory", "ics",
    "ette", "let", "ade", "age", "ary", "ence", "ial", "ian", "ice", "ile", "ine", "ite", "oid",
    "ose", "tic", "um", "us", "ax", "ex", "ix", "ox", "yx", "za", "zo",
];
const CHINESE: &[&str] = &[
    "用户喜欢简洁的回答",
    "项目截止日期",
    "每天早上喝咖啡",
    "数据库迁移",
    "支付模块重构",
    "周末去西湖旅游",
    "会议改到周三",
    "服务器部署在上海",
    "女儿今年六岁",
    "对花生过敏",
    "记忆系统全文检索",
    "编程语言偏好",
    "生日是三月",
    "团队沟通工具",
    "备份保存三十天",
    "北京地铁通勤",
    "学习日语",
    "代码审查流程",
    "发布计划",
    "预算审批",
];

/// The vocabulary: roots × suffixes (3,689 words), in Zipf rank order.
fn vocabulary() -> Vec<String> {
    let mut words = Vec::new();
    for suffix in SUFFIXES {
        for root in ROOTS {
            words.push(format!("{root}{suffix}"));
        }
    }
    words
}

/// Seeded generator of short memories and queries.
pub struct Corpus {
    words: Vec<String>,
    /// Cumulative Zipf (s = 1) weights over `words`.
    cumulative: Vec<f64>,
}

/// Skipped head of the vocabulary for query terms: the most frequent words
/// behave like stop words (in most documents) and real queries rarely consist
/// of them alone.
const QUERY_SKIP_HEAD: usize = 50;

impl Corpus {
    pub fn new() -> Self {
        let words = vocabulary();
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Self { words, cumulative }
    }

    fn zipf_word(&self, rng: &mut StdRng) -> &str {
        let last = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.random_range(0.0..last);
        let i = self
            .cumulative
            .partition_point(|c| *c < x)
            .min(self.words.len() - 1);
        &self.words[i]
    }

    /// `n` memories: 6–14 Zipf-distributed words, a Chinese phrase in 30%.
    /// Ids `bench:{i}`; created one second apart from a fixed epoch.
    pub fn memories(&self, n: usize, seed: u64) -> Vec<MemoryItem> {
        let mut rng = StdRng::seed_from_u64(seed);
        let epoch = DateTime::<Utc>::from_timestamp(1_750_000_000, 0).unwrap_or_default();
        (0..n)
            .map(|i| {
                let len = rng.random_range(6..=14);
                let mut words: Vec<&str> = (0..len).map(|_| self.zipf_word(&mut rng)).collect();
                if rng.random_range(0..10) < 3 {
                    words.push(CHINESE[rng.random_range(0..CHINESE.len())]);
                }
                MemoryItem::new(format!("bench:{i}"), words.join(" "))
                    .with_created_at(epoch + chrono::Duration::seconds(i as i64))
            })
            .collect()
    }

    /// `n` queries: two or three words uniform over the vocabulary past its
    /// head, or (one in five) a Chinese phrase fragment.
    pub fn queries(&self, n: usize, seed: u64) -> Vec<String> {
        let mut rng = StdRng::seed_from_u64(seed);
        (0..n)
            .map(|_| {
                if rng.random_range(0..5) == 0 {
                    let phrase: Vec<char> = CHINESE[rng.random_range(0..CHINESE.len())]
                        .chars()
                        .collect();
                    let start = rng.random_range(0..phrase.len().saturating_sub(2).max(1));
                    phrase[start..(start + 3).min(phrase.len())]
                        .iter()
                        .collect()
                } else {
                    let k = rng.random_range(2..=3);
                    (0..k)
                        .map(|_| {
                            self.words[rng.random_range(QUERY_SKIP_HEAD..self.words.len())].as_str()
                        })
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            })
            .collect()
    }
}

/// The SQLite bench database of `n` memories, built once and cached in the
/// temp dir (`agcore-memory-bench/v1-{n}.db`).
pub async fn cached_sqlite(corpus: &Corpus, n: usize) -> SqliteStore {
    let dir = std::env::temp_dir().join("agcore-memory-bench");
    std::fs::create_dir_all(&dir).unwrap_or_default();
    let path: PathBuf = dir.join(format!("v1-{n}.db"));
    let store = SqliteStore::open(&path).await.unwrap();
    let have = store
        .count(&agcore_memory::MemoryFilter::all())
        .await
        .unwrap();
    if have != n {
        drop(store);
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = SqliteStore::open(&path).await.unwrap();
        let started = Instant::now();
        for chunk in corpus.memories(n, 7).chunks(10_000) {
            store.save_many(chunk.to_vec()).await.unwrap();
        }
        eprintln!(
            "built {} in {:.1}s",
            path.display(),
            started.elapsed().as_secs_f64()
        );
        return store;
    }
    store
}

/// Latency percentiles of running `f` on each query.
pub struct Percentiles {
    pub p50: Duration,
    pub p99: Duration,
    pub mean: Duration,
}

pub async fn percentiles<F, Fut>(queries: &[String], mut f: F) -> Percentiles
where
    F: FnMut(String) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut times = Vec::with_capacity(queries.len());
    for q in queries {
        let started = Instant::now();
        f(q.clone()).await;
        times.push(started.elapsed());
    }
    times.sort();
    let at = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    Percentiles {
        p50: at(0.50),
        p99: at(0.99),
        mean: times.iter().sum::<Duration>() / times.len().max(1) as u32,
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
