//! API keys: created at random, shown once, stored as SHA-256 hashes in a
//! JSON file, each bound to the whole server (admin) or one (agent, user) scope.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::RwLock;
use std::time::SystemTime;

use agcore::memory::long_term::MemoryScope;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::ServerError;

/// Prefix of every key, so leaked keys are easy to find in text.
pub const KEY_PREFIX: &str = "agk_";

/// Random bytes in a key (256 bits).
const KEY_BYTES: usize = 32;

/// What a key may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grant {
    /// Every scope; admin routes name the scope in their path.
    Admin,
    /// Only this (agent, user) scope; the scope never comes from the request.
    Scope(MemoryScope),
}

/// One stored key: its hash, never the key.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct KeyRecord {
    /// Short public id (the first 12 hex digits of the hash), safe to log.
    pub id: String,
    /// SHA-256 of the key, lowercase hex.
    pub sha256: String,
    /// `true` for an admin key.
    #[serde(default)]
    pub admin: bool,
    /// The agent of a scoped key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The user of a scoped key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user: Option<String>,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
}

impl KeyRecord {
    /// The grant of this record; `None` for a malformed scoped record.
    pub fn grant(&self) -> Option<Grant> {
        if self.admin {
            return Some(Grant::Admin);
        }
        let (agent, user) = (self.agent.as_deref()?, self.user.as_deref()?);
        MemoryScope::new(agent, user).ok().map(Grant::Scope)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct KeyFile {
    keys: Vec<KeyRecord>,
}

#[derive(Debug, Default)]
struct Loaded {
    by_hash: HashMap<String, KeyRecord>,
    modified: Option<SystemTime>,
}

/// The server's keys: a JSON file (`{"keys": [...]}`) or, without a file,
/// keys held in memory (tests). Keys created by another process
/// (`agcore serve keys create`) are seen on their first use: an unknown key
/// rereads the file when it changed.
#[derive(Debug)]
pub struct KeyStore {
    path: Option<PathBuf>,
    loaded: RwLock<Loaded>,
}

/// SHA-256 of `key`, lowercase hex.
pub fn hash_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn new_key() -> String {
    let bytes: [u8; KEY_BYTES] = rand::random();
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{KEY_PREFIX}{hex}")
}

fn lock_error() -> ServerError {
    ServerError::Io(std::io::Error::other("the key store lock is poisoned"))
}

impl KeyStore {
    /// Keys held in memory only.
    pub fn in_memory() -> Self {
        Self {
            path: None,
            loaded: RwLock::new(Loaded::default()),
        }
    }

    /// The keys of the file at `path` (absent: no keys yet).
    ///
    /// # Errors
    /// [`ServerError::Io`] when the file exists and cannot be read or parsed.
    pub fn open(path: impl Into<PathBuf>) -> Result<Self, ServerError> {
        let store = Self {
            path: Some(path.into()),
            loaded: RwLock::new(Loaded::default()),
        };
        store.reload()?;
        Ok(store)
    }

    /// The file of the keys, when there is one.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn modified(&self) -> Option<SystemTime> {
        let path = self.path.as_ref()?;
        std::fs::metadata(path).and_then(|m| m.modified()).ok()
    }

    fn reload(&self) -> Result<(), ServerError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let modified = self.modified();
        let file: KeyFile = match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                ServerError::Io(std::io::Error::other(format!("{}: {e}", path.display())))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => KeyFile::default(),
            Err(e) => return Err(e.into()),
        };
        let mut loaded = self.loaded.write().map_err(|_| lock_error())?;
        loaded.by_hash = file
            .keys
            .into_iter()
            .map(|k| (k.sha256.clone(), k))
            .collect();
        loaded.modified = modified;
        Ok(())
    }

    /// Every stored key record (hashes only), oldest first.
    ///
    /// # Errors
    /// [`ServerError::Io`] when the lock is poisoned.
    pub fn records(&self) -> Result<Vec<KeyRecord>, ServerError> {
        let loaded = self.loaded.read().map_err(|_| lock_error())?;
        let mut records: Vec<KeyRecord> = loaded.by_hash.values().cloned().collect();
        records.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
        Ok(records)
    }

    /// Creates a key with `grant`: returns the key (to show once) and its
    /// record; the file (when there is one) gets the record, never the key.
    ///
    /// # Errors
    /// [`ServerError::Io`] when the file cannot be written.
    pub fn create(&self, grant: &Grant) -> Result<(String, KeyRecord), ServerError> {
        self.reload()?;
        let key = new_key();
        let sha256 = hash_key(&key);
        let (admin, agent, user) = match grant {
            Grant::Admin => (true, None, None),
            Grant::Scope(s) => (false, Some(s.agent().to_owned()), Some(s.user().to_owned())),
        };
        let record = KeyRecord {
            id: sha256.chars().take(12).collect(),
            sha256,
            admin,
            agent,
            user,
            created_at: Utc::now(),
        };
        {
            let mut loaded = self.loaded.write().map_err(|_| lock_error())?;
            loaded.by_hash.insert(record.sha256.clone(), record.clone());
        }
        self.save()?;
        Ok((key, record))
    }

    fn save(&self) -> Result<(), ServerError> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        let file = KeyFile {
            keys: self.records()?,
        };
        let text = serde_json::to_string_pretty(&file)
            .map_err(|e| ServerError::Io(std::io::Error::other(e)))?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        let tmp = path.with_extension("json.tmp");
        write_private(&tmp, text.as_bytes())?;
        std::fs::rename(&tmp, path)?;
        let modified = self.modified();
        if let Ok(mut loaded) = self.loaded.write() {
            loaded.modified = modified;
        }
        Ok(())
    }

    /// The record of `key`, `None` when unknown. An unknown key rereads the
    /// file when it changed since it was read.
    pub fn verify(&self, key: &str) -> Option<KeyRecord> {
        let hash = hash_key(key);
        let (found, stale) = match self.loaded.read() {
            Ok(loaded) => (
                loaded.by_hash.get(&hash).cloned(),
                self.path.is_some() && loaded.modified != self.modified(),
            ),
            Err(_) => return None,
        };
        if found.is_some() || !stale {
            return found;
        }
        if let Err(e) = self.reload() {
            tracing::warn!(error = %e, "cannot reread the key file");
        }
        self.loaded.read().ok()?.by_hash.get(&hash).cloned()
    }
}

#[cfg(unix)]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(bytes)
}

#[cfg(not(unix))]
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    std::fs::write(path, bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_stored_as_hashes_and_verified() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let store = KeyStore::open(&path).unwrap();
        let scope = MemoryScope::new("a", "u").unwrap();
        let (key, record) = store.create(&Grant::Scope(scope.clone())).unwrap();
        assert!(key.starts_with(KEY_PREFIX));
        assert_eq!(key.len(), KEY_PREFIX.len() + 64);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains(&key[KEY_PREFIX.len()..]));
        assert!(text.contains(&record.sha256));
        let reopened = KeyStore::open(&path).unwrap();
        assert_eq!(
            reopened.verify(&key).and_then(|r| r.grant()),
            Some(Grant::Scope(scope))
        );
        assert!(reopened.verify("agk_0000").is_none());
    }

    #[test]
    fn keys_created_elsewhere_are_seen_on_first_use() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys.json");
        let server = KeyStore::open(&path).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(20));
        let (key, _) = KeyStore::open(&path)
            .unwrap()
            .create(&Grant::Admin)
            .unwrap();
        assert_eq!(
            server.verify(&key).and_then(|r| r.grant()),
            Some(Grant::Admin)
        );
    }

    #[test]
    fn two_keys_differ() {
        let store = KeyStore::in_memory();
        let (a, _) = store.create(&Grant::Admin).unwrap();
        let (b, _) = store.create(&Grant::Admin).unwrap();
        assert_ne!(a, b);
    }
}
