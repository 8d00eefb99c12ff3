//! [`Analyzer`]: [`extract_keywords`] followed by stemming, and the
//! analyzer every store indexes and queries with ([`index_terms`] for
//! documents, [`query_terms`] for queries, [`ANALYZER_ID`]).

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};

use crate::keywords::{extract_document_keywords, extract_keywords, is_cjk};

/// Turns text into index terms: [`extract_keywords`] (split on
/// non-alphanumerics, lowercase, stop words dropped, CJK character bigrams),
/// then each non-CJK term is reduced to its stem with the Snowball English
/// stemmer ("Porter2": Porter, M. F. (1980), "An algorithm for suffix
/// stripping", *Program* 14(3); Porter, M. F. (2001), "Snowball: A language for
/// stemming algorithms"), so `running`, `runs` and `run` match each other.
///
/// CJK bigrams are left as they are: Chinese and Japanese text is searched
/// exactly as with [`extract_keywords`]. The analyzer is `Send + Sync` and
/// cheap to clone.
///
/// # Examples
/// ```
/// use agcore_search::Analyzer;
/// let analyzer = Analyzer::english();
/// assert_eq!(analyzer.analyze("Running to the painted cars"), vec!["run", "paint", "car"]);
/// assert_eq!(analyzer.analyze("记忆系统"), vec!["记忆", "忆系", "系统"]);
/// ```
#[derive(Clone)]
pub struct Analyzer {
    stemmer: Option<std::sync::Arc<Stemmer>>,
}

impl std::fmt::Debug for Analyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analyzer")
            .field("stemming", &self.stemmer.is_some())
            .finish()
    }
}

impl Default for Analyzer {
    /// [`Analyzer::english`].
    fn default() -> Self {
        Self::english()
    }
}

impl Analyzer {
    /// Keywords with Snowball English stemming.
    pub fn english() -> Self {
        Self {
            stemmer: Some(std::sync::Arc::new(Stemmer::create(Algorithm::English))),
        }
    }

    /// Keywords without stemming: exactly [`extract_keywords`].
    pub fn keywords_only() -> Self {
        Self { stemmer: None }
    }

    /// Whether terms are stemmed.
    pub fn stems(&self) -> bool {
        self.stemmer.is_some()
    }

    /// The index terms of `text`, in text order, duplicates kept (term
    /// frequencies matter). Never panics, for any input.
    pub fn analyze(&self, text: &str) -> Vec<String> {
        let terms = extract_keywords(text);
        if self.stemmer.is_none() {
            return terms;
        }
        terms.into_iter().map(|term| self.stem(term)).collect()
    }

    /// The index terms of a document: as [`Analyzer::analyze`] over
    /// [`extract_document_keywords`] (each character of a CJK run as a
    /// unigram beside its bigrams), so a one-character query matches.
    /// Never panics, for any input.
    pub fn analyze_document(&self, text: &str) -> Vec<String> {
        let terms = extract_document_keywords(text);
        if self.stemmer.is_none() {
            return terms;
        }
        terms.into_iter().map(|term| self.stem(term)).collect()
    }

    /// The index term of one keyword (an item of [`extract_keywords`]'s
    /// output): its stem, or the keyword itself when it holds CJK text, the
    /// analyzer does not stem, or the stem would be empty.
    pub fn stem(&self, keyword: String) -> String {
        let Some(stemmer) = &self.stemmer else {
            return keyword;
        };
        if keyword.chars().any(is_cjk) {
            return keyword;
        }
        match stemmer.stem(&keyword) {
            std::borrow::Cow::Borrowed(same) if same.len() == keyword.len() => keyword,
            stem if stem.is_empty() => keyword,
            stem => stem.into_owned(),
        }
    }
}

/// The name and version of the analyzer behind [`index_terms`]. Stores
/// record it next to their index; a store opened on an index built with
/// another analyzer re-tokenises its stored rows. Changes whenever
/// [`index_terms`] would produce different terms for some text.
pub const ANALYZER_ID: &str = "keywords+snowball-english+cjk-unigrams/3";

/// The analyzer id of indexes written before stemming: plain
/// [`extract_keywords`] (what such stores have recorded, or implied by
/// recording nothing).
pub const KEYWORDS_ANALYZER_ID: &str = "keywords-v1";

static DEFAULT: LazyLock<Analyzer> = LazyLock::new(Analyzer::english);

/// The index terms of a document `text` with the store analyzer
/// ([`ANALYZER_ID`], [`Analyzer::english`], built once): each non-CJK
/// keyword reduced to its Snowball English stem; CJK runs as character
/// bigrams followed by their characters as unigrams
/// ([`Analyzer::analyze_document`]). In text order, duplicates kept (term
/// frequencies). Every store indexes documents with it and queries with
/// [`query_terms`].
///
/// # Examples
/// ```
/// use agcore_search::index_terms;
/// assert_eq!(index_terms("I adopted a puppy"), index_terms("adopting puppies"));
/// assert_eq!(
///     index_terms("记忆系统"),
///     vec!["记忆", "忆系", "系统", "记", "忆", "系", "统"]
/// );
/// ```
pub fn index_terms(text: &str) -> Vec<String> {
    DEFAULT.analyze_document(text)
}

/// The terms of a query `text` with the store analyzer: as [`index_terms`]
/// but CJK runs are bigrams only, a run of one character its unigram
/// ([`Analyzer::analyze`]): `茶` searches the unigram `茶`, `龙井茶` the
/// bigrams `龙井`, `井茶`.
///
/// # Examples
/// ```
/// use agcore_search::query_terms;
/// assert_eq!(query_terms("记忆系统"), vec!["记忆", "忆系", "系统"]);
/// assert_eq!(query_terms("茶"), vec!["茶"]);
/// ```
pub fn query_terms(text: &str) -> Vec<String> {
    DEFAULT.analyze(text)
}

/// The terms of a document re-scored against `query` (the terms of a
/// query): [`index_terms`] when the query holds a lone CJK character (so it
/// can match inside a word), else bigrams only as the query ([`query_terms`]),
/// so a scorer normalising by document length (Dice, BM25 over a candidate
/// list) ranks longer queries as without unigrams.
pub fn rescoring_terms(query: &[String], text: &str) -> Vec<String> {
    if query.iter().any(|t| crate::keywords::is_cjk_unigram(t)) {
        index_terms(text)
    } else {
        query_terms(text)
    }
}

/// Most distinct query terms a search scores (the first ones in query
/// order). Bounds the cost of a huge query; every backend cuts at the same
/// place, so their rankings agree.
pub const MAX_QUERY_TERMS: usize = 256;

/// A query's [`unique_index_terms`], the first [`MAX_QUERY_TERMS`] kept.
pub fn capped_query_terms(query: &str) -> Vec<String> {
    let mut terms = unique_index_terms(query);
    terms.truncate(MAX_QUERY_TERMS);
    terms
}

/// [`query_terms`] without duplicates, first occurrence order kept: the
/// terms of a query.
pub fn unique_index_terms(text: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    query_terms(text)
        .into_iter()
        .filter(|t| seen.insert(t.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inflections_share_a_stem() {
        let a = Analyzer::english();
        assert_eq!(a.analyze("paintings"), a.analyze("painting"));
        assert_eq!(a.analyze("adopted"), a.analyze("adopting"));
    }

    #[test]
    fn keywords_only_is_extract_keywords() {
        let text = "Running dogs, 记忆系统 and 42 cats";
        assert_eq!(
            Analyzer::keywords_only().analyze(text),
            extract_keywords(text)
        );
    }

    #[test]
    fn index_terms_stem_english_and_keep_chinese() {
        assert_eq!(index_terms("running"), index_terms("runs"));
        assert_eq!(index_terms("I adopted a puppy"), vec!["adopt", "puppi"]);
        assert_eq!(unique_index_terms("puppy puppies Puppy"), vec!["puppi"]);
        for text in ["用户的偏好", "记忆系统很快", "猫", "Rust语言很好"] {
            let chinese: Vec<String> = extract_document_keywords(text)
                .into_iter()
                .filter(|k| k.chars().any(is_cjk))
                .collect();
            let stemmed: Vec<String> = index_terms(text)
                .into_iter()
                .filter(|k| k.chars().any(is_cjk))
                .collect();
            assert_eq!(stemmed, chinese, "{text}");
        }
        assert_eq!(query_terms("用户的偏好"), extract_keywords("用户的偏好"));
        assert_eq!(
            index_terms("用户的偏好"),
            extract_document_keywords("用户的偏好")
        );
    }

    #[test]
    fn analyzer_is_send_sync() {
        fn check<T: Send + Sync>() {}
        check::<Analyzer>();
    }
}
