//! [`ScopeIds`]: the row ids of the scopes a process has seen.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use super::MemoryScope;

/// Most scopes [`ScopeIds`] remembers.
const MAX_SCOPES: usize = 100_000;

/// The row ids of scopes a SQL driver has seen, so a write need not look
/// them up again: for databases whose scope rows are never deleted or
/// renumbered while they are open. Bounded: forgotten at once past its
/// limit (100,000 scopes). `Send + Sync`.
#[derive(Debug, Default)]
pub struct ScopeIds(Mutex<HashMap<(String, String), i64>>);

impl ScopeIds {
    fn lock(&self) -> MutexGuard<'_, HashMap<(String, String), i64>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The scope's row id when seen before.
    pub fn get(&self, scope: &MemoryScope) -> Option<i64> {
        let key = (scope.agent().to_owned(), scope.user().to_owned());
        self.lock().get(&key).copied()
    }

    /// Remembers `id` as the scope's row id.
    pub fn remember(&self, scope: &MemoryScope, id: i64) {
        let mut seen = self.lock();
        if seen.len() >= MAX_SCOPES {
            seen.clear();
        }
        seen.insert((scope.agent().to_owned(), scope.user().to_owned()), id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_remembered_per_scope_until_the_limit() {
        let ids = ScopeIds::default();
        let (a, b) = (
            MemoryScope::new("agent", "a"),
            MemoryScope::new("agent", "b"),
        );
        let (Ok(a), Ok(b)) = (a, b) else {
            panic!("valid scopes")
        };
        assert_eq!(ids.get(&a), None);
        ids.remember(&a, 7);
        assert_eq!((ids.get(&a), ids.get(&b)), (Some(7), None));
        for n in 0..MAX_SCOPES {
            if let Ok(scope) = MemoryScope::new("agent", format!("u{n}")) {
                ids.remember(&scope, 1);
            }
        }
        assert_eq!(ids.get(&a), None);
    }
}
