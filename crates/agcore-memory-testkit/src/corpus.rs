//! Reproducible bench data for every backend: a seeded generator of short
//! memories and queries over a Zipf-distributed vocabulary, and latency
//! percentiles (feature `testkit`).
//!
//! Every driver crate's benchmarks draw the same memories and queries from
//! [`Corpus`], so figures of different backends compare.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use agcore_memory::MemoryItem;

/// Data set sizes for benchmarks: 10k and 100k, plus 1M with `AGCORE_BENCH_1M=1`.
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
#[derive(Debug, Clone)]
pub struct Corpus {
    words: Vec<String>,
    /// Cumulative Zipf (s = 1) weights over `words`.
    cumulative: Vec<f64>,
}

/// Skipped head of the vocabulary for query terms: the most frequent words
/// behave like stop words (in most documents) and real queries rarely consist
/// of them alone.
const QUERY_SKIP_HEAD: usize = 50;

impl Default for Corpus {
    fn default() -> Self {
        Self::new()
    }
}

impl Corpus {
    /// The generator over the roots × suffixes vocabulary (3,689 words).
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

    fn word(&self, i: usize) -> &str {
        self.words.get(i).map_or("", String::as_str)
    }

    fn zipf_word(&self, rng: &mut StdRng) -> &str {
        let last = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.random_range(0.0..last);
        let i = self
            .cumulative
            .partition_point(|c| *c < x)
            .min(self.words.len().saturating_sub(1));
        self.word(i)
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
                    words.push(chinese(rng.random_range(0..CHINESE.len())));
                }
                let offset = chrono::Duration::seconds(i64::try_from(i).unwrap_or(i64::MAX));
                MemoryItem::new(format!("bench:{i}"), words.join(" "))
                    .with_created_at(epoch + offset)
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
                    let phrase: Vec<char> = chinese(rng.random_range(0..CHINESE.len()))
                        .chars()
                        .collect();
                    let start = rng.random_range(0..phrase.len().saturating_sub(2).max(1));
                    phrase.iter().skip(start).take(3).collect()
                } else {
                    let k = rng.random_range(2..=3);
                    (0..k)
                        .map(|_| self.word(rng.random_range(QUERY_SKIP_HEAD..self.words.len())))
                        .collect::<Vec<_>>()
                        .join(" ")
                }
            })
            .collect()
    }
}

impl Corpus {
    /// `n` queries of two words among the `head` most frequent (Zipf rank
    /// 1 holds the word of about one memory in five): the worst case of a
    /// search over postings, which reads every memory holding them.
    pub fn common_queries(&self, n: usize, head: usize, seed: u64) -> Vec<String> {
        let mut rng = StdRng::seed_from_u64(seed);
        let head = head.clamp(1, self.words.len().max(1));
        (0..n)
            .map(|_| {
                let a = self.word(rng.random_range(0..head));
                let b = self.word(rng.random_range(0..head));
                format!("{a} {b}")
            })
            .collect()
    }
}

fn chinese(i: usize) -> &'static str {
    CHINESE.get(i).copied().unwrap_or("")
}

/// Latency percentiles of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Percentiles {
    /// Median.
    pub p50: Duration,
    /// 99th percentile.
    pub p99: Duration,
    /// Mean.
    pub mean: Duration,
}

impl Percentiles {
    /// Percentiles of `times` (nearest rank); zero for an empty slice.
    pub fn of(mut times: Vec<Duration>) -> Self {
        times.sort();
        let at = |p: f64| {
            let last = times.len().saturating_sub(1);
            let i = ((last as f64) * p).round() as usize;
            times.get(i).copied().unwrap_or_default()
        };
        let count = u32::try_from(times.len().max(1)).unwrap_or(u32::MAX);
        Self {
            p50: at(0.50),
            p99: at(0.99),
            mean: times.iter().sum::<Duration>() / count,
        }
    }
}

/// Runs `f` on each query in turn and returns the latency percentiles.
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
    Percentiles::of(times)
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}
