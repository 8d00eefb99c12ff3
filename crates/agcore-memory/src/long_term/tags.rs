//! Rule-based tags (`[memory_agent.extract] auto_tag`): the tags an entry
//! saved without any gets, when no model chose them.

use crate::retriever::unique_keywords;

/// Tags a rule gives an entry: at most this many.
pub const RULE_TAGS: usize = 3;

/// Up to `max` tags for `content` by rule: its distinct keywords (stop words
/// dropped, lowercased; CJK as character bigrams, see
/// [`unique_keywords`]), longest first — a longer word is usually the more
/// specific one — ties in order of appearance; numbers are left out.
///
/// ```
/// use agcore_memory::long_term::rule_tags;
/// assert_eq!(rule_tags("Alice works on the payment service in Lyon", 3),
///            ["payment", "service", "alice"]);
/// assert!(rule_tags("", 3).is_empty());
/// ```
pub fn rule_tags(content: &str, max: usize) -> Vec<String> {
    let mut words: Vec<(usize, String)> = unique_keywords(content)
        .into_iter()
        .filter(|w| !w.chars().all(|c| c.is_numeric()))
        .enumerate()
        .collect();
    words.sort_by(|(i, a), (j, b)| {
        b.chars()
            .count()
            .cmp(&a.chars().count())
            .then_with(|| i.cmp(j))
    });
    words.into_iter().take(max).map(|(_, w)| w).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_text_gets_bigram_tags() {
        let tags = rule_tags("用户住在上海", 2);
        assert_eq!(tags.len(), 2);
        assert!(tags.iter().all(|t| t.chars().count() == 2), "{tags:?}");
    }

    #[test]
    fn numbers_and_stop_words_are_not_tags() {
        assert_eq!(rule_tags("the 2024 of and", 3), Vec::<String>::new());
    }
}
