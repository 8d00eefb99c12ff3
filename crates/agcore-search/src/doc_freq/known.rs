//! [`KnownWords`]: the words whose frequency rows a process knows exist.

use std::collections::{BTreeSet, HashSet};
use std::sync::{Mutex, PoisonError};

/// Most words [`KnownWords`] remembers (about 10 MB).
const MAX_WORDS: usize = 200_000;

/// Words whose rows this process knows exist, so that a writer creates only
/// the rows of the others before its transaction. A writer that deletes
/// rows only when a table is counted afresh, before any write, can trust
/// it; a stale answer must not corrupt anything (a row assumed to exist is
/// then inserted by the counting statement all the same). Bounded:
/// forgotten at once past its limit (200,000 words).
#[derive(Debug, Default)]
pub struct KnownWords(Mutex<HashSet<String>>);

impl KnownWords {
    /// The words of `words` whose rows were not seen, in order.
    pub fn unknown<'a>(&self, words: BTreeSet<&'a str>) -> Vec<&'a str> {
        let seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        words.into_iter().filter(|w| !seen.contains(*w)).collect()
    }

    /// Remembers that the rows of `words` exist.
    pub fn learn(&self, words: &[&str]) {
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if seen.len() + words.len() > MAX_WORDS {
            seen.clear();
        }
        seen.extend(words.iter().map(|w| (*w).to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_remembered_until_the_limit() {
        let known = KnownWords::default();
        assert_eq!(known.unknown(["a", "b"].into()), ["a", "b"]);
        known.learn(&["a"]);
        assert_eq!(known.unknown(["a", "b"].into()), ["b"]);
        let many: Vec<String> = (0..MAX_WORDS).map(|i| i.to_string()).collect();
        known.learn(&many.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(known.unknown(["a"].into()), ["a"]);
    }
}
