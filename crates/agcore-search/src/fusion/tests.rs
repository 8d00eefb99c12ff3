//! Tests of [`fuse`](super::fuse).

use super::*;
use proptest::prelude::*;

fn list(ids: &[&str]) -> Vec<(String, f64)> {
    ids.iter()
        .enumerate()
        .map(|(i, id)| ((*id).to_owned(), 10.0 - i as f64))
        .collect()
}

#[test]
fn rrf_rewards_agreement() {
    let fused = fuse(
        &list(&["a", "b", "c"]),
        &list(&["b", "d", "a"]),
        Fusion::default(),
    );
    assert_eq!(fused[0].id, "b"); // 1/62 + 1/61 > 1/61 + 1/63
    assert_eq!(fused[1].id, "a");
    assert_eq!(fused.len(), 4);
    assert_eq!(fused[0].lexical.unwrap().rank, 2);
    assert_eq!(fused[0].dense.unwrap().rank, 1);
}

#[test]
fn weighted_sum_extremes_follow_one_list() {
    let lex = list(&["a", "b", "c"]);
    let dense = list(&["c", "b", "a"]);
    let only_lex = fuse(
        &lex,
        &dense,
        Fusion::WeightedSum {
            lexical_weight: 1.0,
        },
    );
    assert_eq!(only_lex[0].id, "a");
    let only_dense = fuse(
        &lex,
        &dense,
        Fusion::WeightedSum {
            lexical_weight: 0.0,
        },
    );
    assert_eq!(only_dense[0].id, "c");
}

#[test]
fn theoretical_min_max_keeps_a_weak_list_weak() {
    // Min–max would map the dense list's 0.30 … 0.31 onto 0 … 1; with
    // 0 as the lower bound they stay close together, and the lexical
    // list's clear order decides.
    let lex = vec![("a".to_owned(), 9.0), ("b".to_owned(), 3.0)];
    let dense = vec![("b".to_owned(), 0.31), ("a".to_owned(), 0.30)];
    let tmm = fuse(
        &lex,
        &dense,
        Fusion::TheoreticalMinMax {
            lexical_weight: 0.5,
        },
    );
    assert_eq!(tmm[0].id, "a");
    assert!((tmm[0].score - (0.5 + 0.5 * 0.30 / 0.31)).abs() < 1e-12);
    let minmax = fuse(
        &lex,
        &dense,
        Fusion::WeightedSum {
            lexical_weight: 0.5,
        },
    );
    assert_eq!((minmax[0].score, minmax[1].score), (0.5, 0.5));
}

#[test]
fn z_score_weighs_a_list_whose_best_stands_out_more() {
    // The lexical list: "y" far above nine even scores; the dense
    // list: ten evenly spread scores, "b" first. Min–max gives both
    // tops 0.5 (the tie goes to "b" by id); the z-score gives "y"
    // 9 / 2.7 ≈ 3.33 standard deviations and "b" 0.9 / 0.287 ≈ 3.13.
    let mut lex = vec![("y".to_owned(), 10.0)];
    lex.extend((1..10).map(|i| (format!("x{i}"), 1.0)));
    let mut dense = vec![("b".to_owned(), 1.0)];
    dense.extend((1..9).map(|i| (format!("d{i}"), 1.0 - 0.1 * f64::from(i))));
    dense.push(("y".to_owned(), 0.1));
    let minmax = fuse(&lex, &dense, Fusion::default());
    assert_eq!(minmax[0].id, "b");
    let z = fuse(
        &lex,
        &dense,
        Fusion::ZScore {
            lexical_weight: 0.5,
        },
    );
    assert_eq!(z[0].id, "y");
    assert!(
        (z[0].score - 0.5 * 9.0 / 2.7).abs() < 1e-9,
        "{}",
        z[0].score
    );
}

#[test]
fn methods_read_from_configuration() {
    let z: Fusion = toml::from_str("method = \"z_score\"\nlexical_weight = 0.3").unwrap();
    assert_eq!(
        z,
        Fusion::ZScore {
            lexical_weight: 0.3
        }
    );
    let rrf: Fusion = toml::from_str("method = \"rrf\"\nk = 60.0").unwrap();
    assert_eq!(rrf, Fusion::Rrf { k: 60.0 });
}

#[test]
fn duplicates_and_nan_do_not_break_it() {
    let lex = vec![
        ("a".to_owned(), f64::NAN),
        ("a".to_owned(), 3.0),
        ("b".to_owned(), 1.0),
    ];
    let fused = fuse(
        &lex,
        &[],
        Fusion::WeightedSum {
            lexical_weight: 0.5,
        },
    );
    assert_eq!(fused.len(), 2);
    assert!(fused.iter().all(|f| f.score.is_finite()));
}

proptest! {
    #[test]
    fn fused_is_sorted_finite_and_complete(
        a in proptest::collection::vec(("[a-e]", -5.0f64..5.0), 0..8),
        b in proptest::collection::vec(("[c-h]", -1.0f64..1.0), 0..8),
        w in 0.0f64..1.0,
        method in 0u8..4,
    ) {
        let fusion = match method {
            0 => Fusion::Rrf { k: 60.0 },
            1 => Fusion::WeightedSum { lexical_weight: w },
            2 => Fusion::ZScore { lexical_weight: w },
            _ => Fusion::TheoreticalMinMax { lexical_weight: w },
        };
        let fused = fuse(&a, &b, fusion);
        let mut ids: Vec<&str> = a.iter().chain(b.iter()).map(|(id, _)| id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        prop_assert_eq!(fused.len(), ids.len());
        for pair in fused.windows(2) {
            prop_assert!(pair[0].score >= pair[1].score);
        }
        prop_assert!(fused.iter().all(|f| f.score.is_finite() && f.score >= 0.0));
    }
}
