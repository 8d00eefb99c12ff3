//! Replays every file of `fuzz/corpus/<target>/` and `fuzz/regressions/<target>/`
//! through its target, so the seeds keep exercising the code and every crash
//! found by fuzzing stays fixed.

#![allow(clippy::unwrap_used)]

use std::path::Path;

use agcore_fuzz::{Target, run};

fn replay(kind: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(kind);
    let mut files = 0;
    for target in Target::ALL {
        let dir = root.join(target.name());
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
        paths.sort();
        for path in paths.into_iter().filter(|p| p.is_file()) {
            let data = std::fs::read(&path).unwrap();
            let outcome = std::panic::catch_unwind(|| run(target, &data));
            assert!(
                outcome.is_ok(),
                "{} fails {}",
                path.display(),
                target.name()
            );
            files += 1;
        }
    }
    files
}

#[test]
fn every_corpus_file_passes() {
    let files = replay("corpus");
    assert!(files >= 2 * Target::ALL.len(), "only {files} corpus files");
}

#[test]
fn every_regression_file_passes() {
    replay("regressions");
}

#[test]
fn every_target_has_a_corpus() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
    for target in Target::ALL {
        assert!(
            root.join(target.name()).is_dir(),
            "no corpus for {}",
            target.name()
        );
        assert_eq!(Target::from_name(target.name()), Some(target));
    }
}
