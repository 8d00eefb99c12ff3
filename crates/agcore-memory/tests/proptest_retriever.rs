//! Property tests of keyword extraction and both scorers.
#![cfg(test)]

use agcore_memory::retriever::{Bm25, Scorer, TextOverlap, extract_keywords, is_cjk, is_stop_word};
use proptest::prelude::*;

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[a-zA-Z ,.;:!?'\"*()^-]{0,80}",
        "[\u{4e00}-\u{4e80}的了吗 ,。]{0,40}",
        "[a-z\u{4e00}-\u{4e40} 🚀é]{0,60}",
    ]
}

fn terms() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-h]{1,2}", 0..12)
}

proptest! {
    #[test]
    fn keywords_are_lowercase_non_stop_and_well_formed(s in text()) {
        for k in extract_keywords(&s) {
            prop_assert!(!k.is_empty());
            prop_assert!(!is_stop_word(&k), "stop word {k:?}");
            prop_assert!(k.chars().all(|c| c.is_alphanumeric() || is_cjk(c)), "{k:?}");
            prop_assert_eq!(k.to_lowercase(), k.clone());
            let cjk = k.chars().filter(|c| is_cjk(*c)).count();
            if cjk > 0 {
                // CJK terms are character bigrams or a lone character.
                prop_assert!(cjk == k.chars().count() && cjk <= 2, "{k:?}");
            } else {
                prop_assert!(k.chars().count() > 1 || k.chars().all(char::is_numeric), "{k:?}");
            }
        }
    }

    #[test]
    fn cjk_runs_become_overlapping_bigrams(s in "[天地人山水火木金土日月星云雨风记忆系统]{2,12}") {
        // Content characters only (no particles such as 的 or 与).
        let chars: Vec<char> = s.chars().collect();
        let want: Vec<String> = chars.windows(2).map(|w| w.iter().collect::<String>())
            .filter(|b| !is_stop_word(b)).collect();
        prop_assert_eq!(extract_keywords(&s), want);
    }

    #[test]
    fn text_overlap_is_in_unit_range_and_maximal_on_identity(q in terms(), docs in prop::collection::vec(terms(), 0..8)) {
        let scores = TextOverlap.score_all(&q, &docs);
        prop_assert_eq!(scores.len(), docs.len());
        for s in &scores {
            prop_assert!((0.0..=1.0).contains(s), "{s}");
        }
        if !q.is_empty() {
            let own = TextOverlap::dice(&q, &q);
            prop_assert!((own - 1.0).abs() < 1e-12);
            prop_assert!(scores.iter().all(|s| *s <= own));
        }
    }

    #[test]
    fn bm25_is_non_negative_and_order_independent(
        q in terms(),
        docs in prop::collection::vec(terms(), 1..10),
        k1 in 0.0f64..3.0,
        b in 0.0f64..1.0,
        seed in any::<u64>(),
    ) {
        let bm25 = Bm25::new(k1, b);
        let scores = bm25.score_all(&q, &docs);
        prop_assert!(scores.iter().all(|s| s.is_finite() && *s >= 0.0), "{scores:?}");
        // Reverse and rotate: each document keeps its score.
        let mut order: Vec<usize> = (0..docs.len()).collect();
        order.rotate_left((seed as usize) % docs.len());
        order.reverse();
        let shuffled: Vec<Vec<String>> = order.iter().map(|&i| docs[i].clone()).collect();
        let again = bm25.score_all(&q, &shuffled);
        for (pos, &i) in order.iter().enumerate() {
            prop_assert!((again[pos] - scores[i]).abs() < 1e-9);
        }
        let overlap = TextOverlap.score_all(&q, &shuffled);
        for (pos, &i) in order.iter().enumerate() {
            prop_assert!((overlap[pos] - TextOverlap::dice(&q, &docs[i])).abs() < 1e-12);
        }
    }

    #[test]
    fn bm25_identical_document_scores_highest(
        q in prop::collection::btree_set("[a-h]{1,2}", 1..6),
        others in prop::collection::vec(prop::collection::btree_set("[a-j]{1,2}", 6..10), 0..8),
    ) {
        // Documents of distinct terms, none shorter than the query: the query
        // itself as a document ranks first.
        let q: Vec<String> = q.into_iter().collect();
        let mut docs: Vec<Vec<String>> = others.into_iter().map(|d| d.into_iter().collect()).collect();
        docs.push(q.clone());
        let scores = Bm25::default().score_all(&q, &docs);
        let own = *scores.last().unwrap();
        prop_assert!(own > 0.0);
        prop_assert!(scores.iter().all(|s| *s <= own + 1e-12), "{scores:?}");
    }
}
