//! Keyword extraction: the tokeniser shared by every scorer and index.
//!
//! Text is split on whitespace and punctuation (every character that is not
//! alphanumeric), lowercased, and stop words are dropped. Runs of CJK
//! ideographs and kana are cut into overlapping character bigrams (a lone
//! character stays a unigram), the scheme of Lucene's `CJKAnalyzer`, so a
//! Chinese query matches Chinese text without a dictionary. Documents are
//! also indexed with each CJK character as a unigram beside the bigrams
//! ([`extract_document_keywords`], Lucene's `CJKBigramFilter` with
//! `outputUnigrams`), so a one-character query (`茶`) finds the text
//! (`我最喜欢的茶是龙井`) while longer queries keep searching by bigrams.

/// English stop words (a short list after the SMART / Lucene English sets).
const ENGLISH_STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "am", "an", "and", "any", "are", "as", "at",
    "be", "been", "being", "below", "between", "both", "but", "by", "can", "could", "did", "do",
    "does", "doing", "down", "during", "each", "few", "for", "from", "further", "had", "has",
    "have", "having", "he", "her", "here", "hers", "him", "his", "how", "i", "if", "in", "into",
    "is", "it", "its", "itself", "just", "me", "more", "most", "my", "no", "nor", "not", "now",
    "of", "off", "on", "once", "only", "or", "other", "our", "ours", "out", "over", "own", "same",
    "she", "should", "so", "some", "such", "than", "that", "the", "their", "them", "then", "there",
    "these", "they", "this", "those", "through", "to", "too", "under", "until", "up", "very",
    "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why", "will",
    "with", "would", "you", "your", "yours",
];

/// Chinese characters that never carry content; a CJK run is cut at them.
/// Particles and conjunctions, and the interrogatives whose every common
/// word is a question word (`什么`, `为什么`; `怎么`, `怎样`; `哪里`, `哪个`;
/// `谁`) — the counterparts of `what`, `why`, `how`, `where`, `which` and
/// `who` on the English list. Cutting at them keeps a question's content
/// bigrams (`喜欢什么` → `喜欢`) without a bigram that straddles the
/// question word (`欢什`).
const CHINESE_STOP_CHARS: &[char] = &[
    '的', '了', '吗', '呢', '吧', '啊', '呀', '嘛', '哦', '么', '之', '与', '及', '和', '或', '什',
    '怎', '哪', '谁',
];

/// Chinese stop words (bigrams and lone characters) dropped after bigramming.
/// Besides pronouns, demonstratives and function words, the interrogatives
/// not cut as characters (`多少`, `如何`, `为何`, a lone `几`), and the lone
/// characters a cut leaves of a question word (`为` of `为什么`, `样` of
/// `怎样`, `里`, `儿`, `些` of `哪里`, `哪儿`, `哪些`). A bigram holding a
/// stop character never forms, so none is listed.
const CHINESE_STOP_WORDS: &[&str] = &[
    "我们", "你们", "他们", "她们", "它们", "这个", "那个", "这些", "那些", "因为", "所以", "但是",
    "如果", "可以", "没有", "一个", "就是", "还是", "已经", "自己", "这样", "那样", "然后", "而且",
    "多少", "如何", "为何", "我", "你", "他", "她", "它", "是", "在", "也", "都", "就", "有", "这",
    "那", "个", "把", "被", "对", "从", "给", "让", "很", "又", "还", "而", "几", "为", "样", "里",
    "儿", "些",
];

/// Whether `c` belongs to a script written without spaces between words
/// (CJK ideographs and Japanese kana), which is bigrammed.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F  // Extensions B–F, compatibility supplement
        | 0x30000..=0x323AF // Extensions G–H
    )
}

/// Whether `word` (already lowercased) is an English or Chinese stop word.
pub fn is_stop_word(word: &str) -> bool {
    // English stop words are ASCII, Chinese ones never are: one list each.
    if word.is_ascii() {
        ENGLISH_STOP_WORDS.binary_search(&word).is_ok()
    } else {
        CHINESE_STOP_WORDS.contains(&word)
    }
}

/// Splits `text` into search terms, in text order, duplicates kept (term
/// frequencies matter to BM25).
///
/// - Separators: every character that is neither alphanumeric nor CJK
///   (whitespace, punctuation, symbols, emoji). Full-text syntax such as
///   `"`, `*`, `-`, `:` or `NEAR(` is therefore never an operator here:
///   `AND`/`OR` become the stop words `and`/`or`, `NEAR(` the word `near`.
/// - Non-CJK words are lowercased; stop words and one-letter words are
///   dropped (a lone digit such as `7` is kept).
/// - CJK runs become overlapping character bigrams (`记忆系统` →
///   `记忆`, `忆系`, `系统`); a run of one character is kept as a unigram.
///
/// Never panics, for any input.
///
/// # Examples
/// ```
/// use agcore_search::extract_keywords;
/// assert_eq!(extract_keywords("The Rust book!"), vec!["rust", "book"]);
/// assert_eq!(extract_keywords("记忆系统"), vec!["记忆", "忆系", "系统"]);
/// ```
pub fn extract_keywords(text: &str) -> Vec<String> {
    split_keywords(text, false)
}

/// The keywords of a document: [`extract_keywords`] with, after the bigrams
/// of each CJK run of two or more characters, every character of the run as
/// a unigram (stop words dropped), so a query of one CJK character
/// ([`extract_keywords`] keeps it as a unigram) matches the text. Queries
/// of longer runs are bigrams only, so their ranking is not diluted by
/// single-character matches. Never panics, for any input.
///
/// # Examples
/// ```
/// use agcore_search::extract_document_keywords;
/// assert_eq!(
///     extract_document_keywords("记忆系统"),
///     vec!["记忆", "忆系", "系统", "记", "忆", "系", "统"]
/// );
/// assert_eq!(extract_document_keywords("The Rust book"), vec!["rust", "book"]);
/// ```
pub fn extract_document_keywords(text: &str) -> Vec<String> {
    split_keywords(text, true)
}

/// Whether `term` is one CJK character (a unigram of a CJK run).
pub fn is_cjk_unigram(term: &str) -> bool {
    let mut chars = term.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if is_cjk(c))
}

fn split_keywords(text: &str, unigrams: bool) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk_run: Vec<char> = Vec::new();
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            if CHINESE_STOP_CHARS.contains(&c) {
                flush_cjk(&mut cjk_run, &mut out, unigrams);
            } else {
                cjk_run.push(c);
            }
        } else if c.is_alphanumeric() {
            flush_cjk(&mut cjk_run, &mut out, unigrams);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk_run, &mut out, unigrams);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk_run, &mut out, unigrams);
    out
}

/// [`extract_keywords`] without duplicates, first occurrence order kept.
pub fn unique_keywords(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    extract_keywords(text)
        .into_iter()
        .filter(|k| seen.insert(k.clone()))
        .collect()
}

fn flush_word(word: &mut String, out: &mut Vec<String>) {
    let keep = word.chars().count() > 1 || word.chars().all(char::is_numeric);
    if keep && !word.is_empty() && !is_stop_word(word) {
        out.push(std::mem::take(word));
    } else {
        word.clear();
    }
}

fn flush_cjk(run: &mut Vec<char>, out: &mut Vec<String>, unigrams: bool) {
    match run.as_slice() {
        [] => {}
        [single] => push_cjk(single.to_string(), out),
        chars => {
            for pair in chars.windows(2) {
                push_cjk(pair.iter().collect(), out);
            }
            if unigrams {
                for c in chars {
                    push_cjk(c.to_string(), out);
                }
            }
        }
    }
    run.clear();
}

fn push_cjk(term: String, out: &mut Vec<String>) {
    if !is_stop_word(&term) {
        out.push(term);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_stop_words_are_sorted_for_binary_search() {
        let mut sorted = ENGLISH_STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, ENGLISH_STOP_WORDS);
        assert!(ENGLISH_STOP_WORDS.iter().all(|w| w.is_ascii()));
        assert!(CHINESE_STOP_WORDS.iter().all(|w| !w.is_ascii()));
        assert!(is_stop_word("the") && is_stop_word("我们") && !is_stop_word("记忆"));
    }

    #[test]
    fn splits_on_punctuation_and_lowercases() {
        assert_eq!(
            extract_keywords("Hello, WORLD! foo-bar:baz"),
            vec!["hello", "world", "foo", "bar", "baz"]
        );
    }

    #[test]
    fn drops_single_characters_and_stop_words() {
        assert_eq!(
            extract_keywords("a cat is on the mat x"),
            vec!["cat", "mat"]
        );
    }

    #[test]
    fn bigrams_cjk_and_cuts_at_particles() {
        assert_eq!(extract_keywords("用户的偏好"), vec!["用户", "偏好"]);
        assert_eq!(extract_keywords("猫"), vec!["猫"]);
        assert_eq!(extract_keywords("我"), Vec::<String>::new());
    }

    #[test]
    fn documents_add_cjk_unigrams_queries_do_not() {
        let doc = extract_document_keywords("我最喜欢的茶是龙井");
        assert!(doc.contains(&"茶".to_string()), "{doc:?}");
        assert!(doc.contains(&"龙井".to_string()), "{doc:?}");
        assert!(!doc.contains(&"我".to_string()) && !doc.contains(&"是".to_string()));
        assert_eq!(extract_keywords("茶"), vec!["茶"]);
        assert_eq!(extract_keywords("龙井茶"), vec!["龙井", "井茶"]);
        assert_eq!(extract_document_keywords("猫"), vec!["猫"]);
        let mixed = "Rust 语言 and tea";
        assert_eq!(
            extract_document_keywords(mixed),
            vec!["rust", "语言", "语", "言", "tea"]
        );
        assert!(is_cjk_unigram("茶") && !is_cjk_unigram("龙井") && !is_cjk_unigram("7"));
    }

    #[test]
    fn question_words_leave_only_content_bigrams() {
        assert_eq!(
            extract_keywords("晓雨喜欢什么"),
            vec!["晓雨", "雨喜", "喜欢"]
        );
        assert_eq!(
            extract_keywords("他在哪座古城"),
            vec!["他在", "座古", "古城"]
        );
        assert_eq!(extract_keywords("谁照看宠物"), vec!["照看", "看宠", "宠物"]);
        assert_eq!(
            extract_keywords("为什么？怎么样？哪里？哪些？如何？"),
            Vec::<String>::new()
        );
        assert_eq!(extract_keywords("收入涨了多少"), vec!["收入", "入涨"]);
    }

    #[test]
    fn no_stop_word_holds_a_stop_character() {
        for word in CHINESE_STOP_WORDS {
            assert!(
                !word.chars().any(|c| CHINESE_STOP_CHARS.contains(&c)),
                "{word}"
            );
        }
    }

    #[test]
    fn mixed_scripts_and_emoji() {
        assert_eq!(
            extract_keywords("Rust语言🚀rocks"),
            vec!["rust", "语言", "rocks"]
        );
    }

    #[test]
    fn query_syntax_is_plain_text() {
        assert_eq!(
            extract_keywords("\"foo\" AND bar* OR NEAR(baz) ^qux '; DROP TABLE x; --"),
            vec!["foo", "bar", "near", "baz", "qux", "drop", "table"]
        );
    }

    #[test]
    fn unique_keeps_first_occurrence() {
        assert_eq!(unique_keywords("rust go rust"), vec!["rust", "go"]);
    }
}
