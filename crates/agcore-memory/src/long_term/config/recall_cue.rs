//! The default detector of `long_term_trigger = "keywords"` when
//! `trigger_keywords` is empty: a message is worth a memory search when it
//! refers to the past, names someone or something, or holds a technical
//! term — in English or Chinese.

/// English phrases that refer to earlier conversations or to what the user
/// told before (matched on the lowercased message, at word boundaries).
const PAST_EN: &[&str] = &[
    "remember",
    "remind me",
    "recall",
    "last time",
    "last week",
    "last month",
    "last year",
    "yesterday",
    "earlier",
    "before",
    "previously",
    "previous",
    "again",
    "did i",
    "did we",
    "have i",
    "had i",
    "i told you",
    "i said",
    "i mentioned",
    "we discussed",
    "we talked",
    "you said",
    "you told",
    "as usual",
    "my",
    "mine",
    "favorite",
    "favourite",
    "prefer",
];

/// Chinese words of the same kinds (matched as substrings): the past,
/// remembering, what the user said, and the user's own things and tastes.
const PAST_ZH: &[&str] = &[
    "记得",
    "记住",
    "回忆",
    "上次",
    "上回",
    "之前",
    "以前",
    "先前",
    "刚才",
    "昨天",
    "前天",
    "上周",
    "上个月",
    "去年",
    "曾经",
    "说过",
    "提过",
    "聊过",
    "讲过",
    "告诉过",
    "问过",
    "还是",
    "照旧",
    "老样子",
    "我的",
    "我们的",
    "喜欢",
    "偏好",
    "习惯",
];

/// Chinese words of technical and project talk.
const TECH_ZH: &[&str] = &[
    "代码",
    "配置",
    "部署",
    "数据库",
    "接口",
    "报错",
    "错误",
    "版本",
    "服务器",
    "项目",
    "函数",
    "模型",
    "文件",
    "仓库",
    "分支",
    "测试",
    "依赖",
    "日志",
];

/// Whether `message` looks like it needs memories: it refers to the past or
/// to the user's own things ("remember", "last time", "my", `上次`, `我的`),
/// names a person or thing (a capitalised word after the first word), or
/// holds a technical term (a version such as `1.40`, a word with a digit, `_`, `.`, `/`, `::`, an
/// inner capital as in `CamelCase`, a backtick, or a Chinese technical word
/// such as `部署`, `数据库`).
///
/// # Examples
/// ```
/// use agcore_memory::long_term::needs_memory;
/// assert!(needs_memory("What did I say about the trip last time?"));
/// assert!(needs_memory("Deploy it with docker_compose"));
/// assert!(needs_memory("How is Alice doing?"));
/// assert!(needs_memory("你还记得我喜欢什么茶吗"));
/// assert!(needs_memory("数据库又报错了"));
/// assert!(!needs_memory("thanks, that is all"));
/// assert!(!needs_memory("好的，谢谢"));
/// ```
pub fn needs_memory(message: &str) -> bool {
    let lower = message.to_lowercase();
    refers_to_past(&lower)
        || PAST_ZH.iter().chain(TECH_ZH).any(|w| message.contains(w))
        || message.split_whitespace().any(is_technical)
        || names_someone(message)
}

/// Whether the lowercased `lower` holds one of [`PAST_EN`] between word
/// boundaries.
fn refers_to_past(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .collect();
    PAST_EN.iter().any(|phrase| {
        let parts: Vec<&str> = phrase.split(' ').collect();
        words.windows(parts.len()).any(|w| w == parts.as_slice())
    })
}

/// Whether `word` (one whitespace-separated token) looks technical.
fn is_technical(word: &str) -> bool {
    let word = word.trim_matches(|c: char| matches!(c, ',' | ';' | ':' | '!' | '?' | '(' | ')'));
    let word = word.trim_end_matches('.');
    if word.contains('`') || word.contains("::") {
        return true;
    }
    let has_letter = word.chars().any(char::is_alphabetic);
    let version = word.contains('.') && word.chars().any(|c| c.is_ascii_digit());
    let marked = word
        .chars()
        .any(|c| c.is_ascii_digit() || matches!(c, '_' | '.' | '/'));
    let inner_capital =
        word.chars().skip(1).any(char::is_uppercase) && word.chars().any(char::is_lowercase);
    version || (has_letter && (marked || inner_capital))
}

/// Whether a word other than the first of its sentence starts with a
/// capital (a name: `Alice`, `Postgres`); `I` and its contractions do not
/// count.
fn names_someone(message: &str) -> bool {
    let mut sentence_start = true;
    for raw in message.split_whitespace() {
        let word = raw.trim_matches(|c: char| !c.is_alphanumeric());
        let capital = word.chars().next().is_some_and(char::is_uppercase);
        let pronoun = word == "I" || word.starts_with("I'");
        if capital && !sentence_start && !pronoun {
            return true;
        }
        sentence_start = raw.ends_with(['.', '!', '?']);
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_about_the_past_need_memory() {
        for m in [
            "Do you remember what I ordered?",
            "what did we decide yesterday",
            "Same as last time please",
            "what's my favourite colour",
            "上次我们聊到哪里了",
            "我以前跟你说过我的猫叫什么",
        ] {
            assert!(needs_memory(m), "{m}");
        }
    }

    #[test]
    fn names_and_technical_terms_need_memory() {
        for m in [
            "Can you ask Bob about it",
            "the build fails in src/main.rs",
            "bump tokio to 1.40",
            "call get_user_id first",
            "is HashMap faster here",
            "用 Redis 部署",
        ] {
            assert!(needs_memory(m), "{m}");
        }
    }

    #[test]
    fn small_talk_does_not() {
        for m in [
            "thanks, that is all",
            "Hello there",
            "ok. Sounds good",
            "I think so",
            "好的，谢谢",
            "今天天气不错",
            "",
        ] {
            assert!(!needs_memory(m), "{m}");
        }
    }
}
