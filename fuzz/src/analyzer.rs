//! The query analyzer and tokeniser: terms are clean, stemming keeps one term
//! per keyword, and a space splits text into independent halves.

use agcore_memory::retriever::{
    Analyzer, extract_document_keywords, extract_keywords, index_terms, is_cjk, is_stop_word,
    query_terms, unique_index_terms, unique_keywords,
};

fn check_keyword(term: &str) {
    assert!(!term.is_empty(), "empty keyword");
    assert!(!is_stop_word(term), "stop word {term:?} kept");
    // Lowercasing may add combining marks (`İ` → `i̇`), never spaces or
    // the punctuation full-text engines read as operators.
    assert!(
        !term
            .chars()
            .any(|c| c.is_whitespace() || c.is_ascii_punctuation() || c.is_control()),
        "separator inside {term:?}"
    );
    if term.chars().any(is_cjk) {
        let n = term.chars().count();
        assert!((1..=2).contains(&n), "CJK term {term:?} is not a bigram");
        assert!(term.chars().all(is_cjk), "mixed CJK term {term:?}");
    }
}

/// Runs the tokeniser and both analyzers on the input (as UTF-8, lossy) and
/// on its halves around the first NUL joined by a space.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let keywords = extract_keywords(&text);
    for term in &keywords {
        check_keyword(term);
    }
    assert_eq!(Analyzer::keywords_only().analyze(&text), keywords);
    let english = Analyzer::english();
    let stemmed = english.analyze(&text);
    assert_eq!(
        stemmed.len(),
        keywords.len(),
        "stemming adds or drops terms"
    );
    for (term, keyword) in stemmed.iter().zip(&keywords) {
        assert!(!term.is_empty(), "empty stem of {keyword:?}");
        if keyword.chars().any(is_cjk) {
            assert_eq!(term, keyword, "a CJK term was stemmed");
        }
    }
    assert_eq!(query_terms(&text), stemmed);
    let document = index_terms(&text);
    assert_eq!(document, english.analyze_document(&text));
    for term in &extract_document_keywords(&text) {
        check_keyword(term);
    }
    // A query finds the text it was cut from: every query term is a
    // document term (the unigrams only add to the bigrams).
    assert!(
        stemmed.iter().all(|t| document.contains(t)),
        "a query term missing from the document's terms"
    );

    let unique = unique_index_terms(&text);
    let mut seen = std::collections::HashSet::new();
    assert!(
        unique.iter().all(|t| seen.insert(t)),
        "duplicate query term"
    );
    assert!(unique.iter().all(|t| stemmed.contains(t)));
    assert!(unique_keywords(&text).iter().all(|t| keywords.contains(t)));

    if let Some((left, right)) = text.split_once('\0') {
        let joined = extract_keywords(&format!("{left} {right}"));
        let mut halves = extract_keywords(left);
        halves.extend(extract_keywords(right));
        assert_eq!(joined, halves, "a space does not separate terms");
    }
}
