//! What one [`MysqlLongTerm`](super::MysqlLongTerm) has seen of rows that
//! are never deleted or renumbered while the database is open, so a write
//! need not look them up again: scope rows (ids) and document-frequency
//! rows (words; only [`super::df::sync`] deletes them, under the migration
//! lock, before any write of this version). A stale answer cannot corrupt
//! anything: a word row assumed to exist is inserted by the write's own
//! statement all the same. Each set is bounded and forgotten at once past
//! its limit.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::{Mutex, MutexGuard, PoisonError};

use agcore_memory::long_term::MemoryScope;
use mysql_async::Conn;

use super::rows;
use crate::error::Result;

/// Most words remembered (about 10 MB).
const MAX_WORDS: usize = 200_000;
/// Most scopes remembered.
const MAX_SCOPES: usize = 100_000;

#[derive(Debug, Default)]
pub(crate) struct Seen {
    words: Mutex<HashSet<String>>,
    scopes: Mutex<HashMap<(String, String), i64>>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Seen {
    /// The words of `words` whose rows were not seen, in order.
    pub(crate) fn unknown_words<'a>(&self, words: BTreeSet<&'a str>) -> Vec<&'a str> {
        let seen = lock(&self.words);
        words.into_iter().filter(|w| !seen.contains(*w)).collect()
    }

    /// Remembers that the rows of `words` exist.
    pub(crate) fn learn_words(&self, words: &[&str]) {
        let mut seen = lock(&self.words);
        if seen.len() + words.len() > MAX_WORDS {
            seen.clear();
        }
        seen.extend(words.iter().map(|w| (*w).to_owned()));
    }

    /// The scope's row id, created on first use (see [`rows::scope_id`]).
    pub(crate) async fn scope_id(&self, conn: &mut Conn, scope: &MemoryScope) -> Result<i64> {
        let key = (scope.agent().to_owned(), scope.user().to_owned());
        if let Some(id) = lock(&self.scopes).get(&key) {
            return Ok(*id);
        }
        let id = rows::scope_id(conn, scope).await?;
        let mut seen = lock(&self.scopes);
        if seen.len() >= MAX_SCOPES {
            seen.clear();
        }
        seen.insert(key, id);
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_remembered_until_the_limit() {
        let seen = Seen::default();
        assert_eq!(seen.unknown_words(["a", "b"].into()), ["a", "b"]);
        seen.learn_words(&["a"]);
        assert_eq!(seen.unknown_words(["a", "b"].into()), ["b"]);
        let many: Vec<String> = (0..MAX_WORDS).map(|i| i.to_string()).collect();
        seen.learn_words(&many.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(seen.unknown_words(["a"].into()), ["a"]);
    }
}
