use std::sync::Arc;

use agcore_memory::{MemoryError, MemoryFilter, MemoryItem, MemoryStore};

use crate::AgentError;

/// Key–value memory shared by the contexts of one session.
///
/// It sits between long-lived memory (a [`MemoryStore`] or knowledge store,
/// shared across sessions) and conversation history (one context's messages):
/// a context writes a conclusion (`set("design_decision", "PostgreSQL")`) and
/// a context created later in the same session sees it through [`snapshot`],
/// without the first context's whole history.
///
/// Entries live in any [`MemoryStore`] under the namespace `_session_{id}`
/// (item ids `_session_{id}:{key}`), so sessions never see each other's
/// entries, and a persistent store makes them survive the process.
///
/// [`snapshot`]: SessionMemory::snapshot
#[derive(Clone)]
pub struct SessionMemory {
    store: Arc<dyn MemoryStore>,
    namespace: String,
}

impl std::fmt::Debug for SessionMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionMemory")
            .field("namespace", &self.namespace)
            .finish_non_exhaustive()
    }
}

impl SessionMemory {
    /// Session memory for `session_id` in `store`.
    pub fn new(store: Arc<dyn MemoryStore>, session_id: &str) -> Self {
        Self {
            store,
            namespace: format!("_session_{session_id}"),
        }
    }

    /// Session memory for `session_id` in a fresh in-memory store (the
    /// fallback when the runtime has no memory backend).
    pub fn in_memory(session_id: &str) -> Self {
        Self::new(Arc::new(agcore_memory::InMemoryStore::new()), session_id)
    }

    /// The namespace, `_session_{id}`.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }

    fn item_id(&self, key: &str) -> Result<String, AgentError> {
        if key.trim().is_empty() {
            return Err(
                MemoryError::InvalidInput("session memory key must not be empty".into()).into(),
            );
        }
        if key.contains(['\n', '\r']) {
            return Err(MemoryError::InvalidInput(
                "session memory key must be a single line".into(),
            )
            .into());
        }
        Ok(format!("{}:{key}", self.namespace))
    }

    fn prefix(&self) -> String {
        format!("{}:", self.namespace)
    }

    /// Sets `key` to `value` (replacing any earlier value).
    ///
    /// # Errors
    /// [`AgentError::Memory`]: an empty or multi-line key, a key too long for
    /// the store's ids, or a storage failure.
    pub async fn set(&self, key: &str, value: &str) -> Result<(), AgentError> {
        let id = self.item_id(key)?;
        let item = MemoryItem::new(id, value).with_metadata(serde_json::json!({ "key": key }));
        self.store.save(item).await?;
        Ok(())
    }

    /// The value of `key`, or `None`.
    ///
    /// # Errors
    /// [`AgentError::Memory`] for an invalid key or a storage failure.
    pub async fn get(&self, key: &str) -> Result<Option<String>, AgentError> {
        let id = self.item_id(key)?;
        Ok(self.store.get(&id).await?.map(|item| item.content))
    }

    /// Removes `key` (no error when it is absent).
    ///
    /// # Errors
    /// [`AgentError::Memory`] for an invalid key or a storage failure.
    pub async fn remove(&self, key: &str) -> Result<(), AgentError> {
        let id = self.item_id(key)?;
        self.store.delete(&id).await?;
        Ok(())
    }

    /// All entries as `(key, value)`, sorted by key.
    ///
    /// # Errors
    /// [`AgentError::Memory`] on a storage failure.
    pub async fn entries(&self) -> Result<Vec<(String, String)>, AgentError> {
        let prefix = self.prefix();
        let items = self
            .store
            .list(&MemoryFilter::with_prefix(prefix.clone()))
            .await?;
        let mut entries: Vec<(String, String)> = items
            .into_iter()
            .filter_map(|item| {
                let key = item.id.strip_prefix(&prefix)?.to_owned();
                Some((key, item.content))
            })
            .collect();
        entries.sort();
        Ok(entries)
    }

    /// Removes every entry of this session.
    ///
    /// # Errors
    /// [`AgentError::Memory`] on a storage failure.
    pub async fn clear(&self) -> Result<(), AgentError> {
        for (key, _) in self.entries().await? {
            self.store
                .delete(&format!("{}{key}", self.prefix()))
                .await?;
        }
        Ok(())
    }

    /// The entries formatted for a system prompt, keys in sorted order:
    ///
    /// ```text
    /// <session-context>
    /// key1: value1
    /// key2: value2
    /// </session-context>
    /// ```
    ///
    /// Continuation lines of a multi-line value are indented by two spaces.
    /// Returns an empty string when there are no entries, so nothing is injected.
    ///
    /// # Errors
    /// [`AgentError::Memory`] on a storage failure.
    pub async fn snapshot(&self) -> Result<String, AgentError> {
        let entries = self.entries().await?;
        if entries.is_empty() {
            return Ok(String::new());
        }
        let mut out = String::from("<session-context>\n");
        for (key, value) in entries {
            out.push_str(&key);
            out.push_str(": ");
            out.push_str(&value.replace('\n', "\n  "));
            out.push('\n');
        }
        out.push_str("</session-context>");
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn set_get_remove_and_snapshot_in_key_order() {
        let memory = SessionMemory::in_memory("s1");
        assert_eq!(memory.snapshot().await.unwrap(), "");
        memory.set("zeta", "last").await.unwrap();
        memory
            .set("design_decision", "用 PostgreSQL")
            .await
            .unwrap();
        memory.set("notes", "line one\nline two").await.unwrap();
        memory.set("zeta", "replaced").await.unwrap();
        assert_eq!(
            memory.get("zeta").await.unwrap().as_deref(),
            Some("replaced")
        );
        assert_eq!(
            memory.snapshot().await.unwrap(),
            "<session-context>\ndesign_decision: 用 PostgreSQL\nnotes: line one\n  line two\nzeta: replaced\n</session-context>"
        );
        memory.remove("zeta").await.unwrap();
        memory.remove("zeta").await.unwrap();
        assert_eq!(memory.get("zeta").await.unwrap(), None);
    }

    #[tokio::test]
    async fn sessions_sharing_a_store_are_isolated() {
        let store: Arc<dyn MemoryStore> = Arc::new(agcore_memory::InMemoryStore::new());
        let a = SessionMemory::new(Arc::clone(&store), "a");
        let b = SessionMemory::new(Arc::clone(&store), "ab");
        a.set("k", "from a").await.unwrap();
        b.set("k", "from ab").await.unwrap();
        assert_eq!(a.get("k").await.unwrap().as_deref(), Some("from a"));
        assert_eq!(a.entries().await.unwrap().len(), 1);
        a.clear().await.unwrap();
        assert!(a.entries().await.unwrap().is_empty());
        assert_eq!(b.get("k").await.unwrap().as_deref(), Some("from ab"));
    }

    #[tokio::test]
    async fn bad_keys_are_rejected() {
        let memory = SessionMemory::in_memory("s");
        assert!(memory.set("", "v").await.is_err());
        assert!(memory.set("a\nb", "v").await.is_err());
        assert!(memory.set(&"k".repeat(1000), "v").await.is_err());
        assert!(memory.entries().await.unwrap().is_empty());
    }
}
