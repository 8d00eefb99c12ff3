//! The shared flows against rows kept in a map ([`Fake`]), statements
//! recorded by table.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::super::{
    DialogueTurn, HistoryReason, MemoryEntry, MemoryScope, MemoryType, MemoryUpdate, NewMemory,
    UsageRecord, WeightRules, content_key,
};
use super::{LongTermRows, SqlConn, SqlParam, SqlType, SqlValue, flows};
use crate::MemoryError;

#[derive(Default)]
struct Fake {
    entries: BTreeMap<i64, MemoryEntry>,
    /// Statements run, by their first two words.
    ran: Vec<String>,
    /// The next insert loses to a concurrent one of the same entry.
    lose_insert: bool,
    locked: Vec<i64>,
}

impl Fake {
    fn add(&mut self, entry: &MemoryEntry) -> i64 {
        let id = self.entries.len() as i64 + 1;
        let mut entry = entry.clone();
        entry.id = id;
        self.entries.insert(id, entry);
        id
    }
}

#[async_trait]
impl SqlConn for Fake {
    type Error = MemoryError;

    async fn execute(&mut self, sql: &str, _: &[SqlParam<'_>]) -> Result<usize, MemoryError> {
        let words: Vec<&str> = sql.split_whitespace().take(3).collect();
        self.ran.push(words.join(" "));
        Ok(1)
    }

    /// Answers the entry selects of [`super::entries`]: by id (`load`) or
    /// the scope's active entries (`list`).
    async fn query(
        &mut self,
        sql: &str,
        params: &[SqlParam<'_>],
        _: &[SqlType],
    ) -> Result<Vec<Vec<SqlValue>>, MemoryError> {
        let by_id = sql.contains("m.id = ?");
        let (id, scope) = match params {
            [
                SqlParam::Int(id),
                SqlParam::Text(agent),
                SqlParam::Text(user),
            ] if by_id => (Some(*id), MemoryScope::new(*agent, *user)?),
            [SqlParam::Text(agent), SqlParam::Text(user)] => {
                (None, MemoryScope::new(*agent, *user)?)
            }
            _ => return Ok(Vec::new()),
        };
        let found: Vec<MemoryEntry> = (self.entries.values())
            .filter(|e| e.scope().is_ok_and(|s| s == scope))
            .filter(|e| id.map_or(!e.archived, |id| e.id == id))
            .cloned()
            .collect();
        if sql.ends_with("FOR UPDATE") {
            self.locked.extend(found.iter().map(|e| e.id));
        }
        Ok(found.iter().map(values).collect())
    }
}

#[async_trait]
impl LongTermRows for Fake {
    async fn scope_id(&mut self, _: &MemoryScope) -> Result<i64, MemoryError> {
        Ok(7)
    }

    async fn id_by_key(
        &mut self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<i64>, MemoryError> {
        let found = self
            .entries
            .values()
            .find(|e| e.scope().is_ok_and(|s| &s == scope) && content_key(&e.content) == key);
        Ok(found.map(|e| e.id))
    }

    async fn load_many(
        &mut self,
        _: &MemoryScope,
        _: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        Ok(Vec::new())
    }

    async fn insert(
        &mut self,
        scope_id: i64,
        entry: &MemoryEntry,
    ) -> Result<Option<i64>, MemoryError> {
        assert_eq!(scope_id, 7);
        let id = self.add(entry);
        if std::mem::take(&mut self.lose_insert) {
            return Ok(None);
        }
        Ok(Some(id))
    }

    async fn store(
        &mut self,
        _: &MemoryScope,
        entry: &MemoryEntry,
        reindex: bool,
    ) -> Result<(), MemoryError> {
        self.ran.push(format!("store {reindex}"));
        self.entries.insert(entry.id, entry.clone());
        Ok(())
    }

    async fn remove(&mut self, id: i64) -> Result<(), MemoryError> {
        self.entries.remove(&id);
        Ok(())
    }

    async fn buffer_append(
        &mut self,
        _: &MemoryScope,
        _: &str,
        _: (&str, &str),
        _: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        Err(MemoryError::Storage("unused".into()))
    }
}

/// The [`super::ENTRY_COLUMNS`] values of `e`.
fn values(e: &MemoryEntry) -> Vec<SqlValue> {
    use SqlValue::{Bool, Float, Int, Null, Text, Time};
    let json = |v: &dyn erased::Json| Text(v.json());
    vec![
        Int(e.id),
        Text(e.agent_name.clone()),
        Text(e.user_id.clone()),
        Text(e.memory_type.as_str().to_owned()),
        Text(e.name.clone()),
        Text(e.content.clone()),
        Text(e.description.clone()),
        json(&e.metadata),
        json(&e.tags),
        Float(e.weight),
        Bool(e.archived),
        Int(e.use_count as i64),
        e.last_used_at.map_or(Null, Time),
        Time(e.weight_updated_at),
        Time(e.created_at),
        Time(e.updated_at),
    ]
}

mod erased {
    pub(super) trait Json {
        fn json(&self) -> String;
    }
    impl<T: serde::Serialize> Json for T {
        fn json(&self) -> String {
            serde_json::to_string(self).unwrap_or_default()
        }
    }
}

fn setup() -> (MemoryScope, WeightRules, DateTime<Utc>, Fake) {
    let scope = MemoryScope::new("agent", "user").expect("a valid scope");
    (scope, WeightRules::default(), Utc::now(), Fake::default())
}

fn tea() -> NewMemory {
    NewMemory::new(MemoryType::User, "drink", "Alice prefers green tea")
}

#[tokio::test]
async fn a_save_of_known_text_merges_and_a_lost_insert_merges_into_the_winner()
-> Result<(), MemoryError> {
    let (scope, rules, now, mut rows) = setup();
    let first = flows::save(&mut rows, &scope, tea(), &rules, now).await?;
    assert!(first.created);
    let again = NewMemory::new(MemoryType::User, "drink", "alice  PREFERS green tea");
    let second = flows::save(&mut rows, &scope, again, &rules, now).await?;
    assert!(!second.created);
    assert_eq!((second.entry.id, rows.entries.len()), (first.entry.id, 1));
    assert_eq!(rows.ran, ["store true"]);

    let (scope, rules, now, mut rows) = setup();
    rows.lose_insert = true;
    let outcome = flows::save(&mut rows, &scope, tea(), &rules, now).await?;
    assert!(!outcome.created, "merged into the concurrent insert");
    assert_eq!(rows.entries.len(), 1);
    Ok(())
}

#[tokio::test]
async fn an_update_to_another_entrys_text_changes_nothing() -> Result<(), MemoryError> {
    let (scope, rules, now, mut rows) = setup();
    let tea = flows::save(&mut rows, &scope, tea(), &rules, now)
        .await?
        .entry;
    let coffee = NewMemory::new(MemoryType::User, "drink", "Bob drinks coffee");
    let coffee = flows::save(&mut rows, &scope, coffee, &rules, now)
        .await?
        .entry;
    let change = (
        coffee.id,
        MemoryUpdate::new().content("alice prefers GREEN tea"),
        HistoryReason::Update,
    );
    let refused = flows::update(&mut rows, &scope, change, &rules, now).await;
    assert!(matches!(refused, Err(MemoryError::AlreadyExists(_))));
    assert!(
        rows.ran.is_empty(),
        "no history row, nothing stored: {:?}",
        rows.ran
    );
    let missing = (99, MemoryUpdate::new().content("x"), HistoryReason::Update);
    let missing = flows::update(&mut rows, &scope, missing, &rules, now).await;
    assert!(matches!(missing, Err(MemoryError::NotFound(_))));
    let change = (
        tea.id,
        MemoryUpdate::new().content("Alice prefers oolong"),
        HistoryReason::Update,
    );
    let updated = flows::update(&mut rows, &scope, change, &rules, now).await?;
    assert_eq!(updated.content, "Alice prefers oolong");
    assert_eq!(rows.ran, ["INSERT INTO agcore_lt_history", "store true"]);
    Ok(())
}

#[tokio::test]
async fn delete_use_and_maintenance_write_their_rows() -> Result<(), MemoryError> {
    let (scope, rules, now, mut rows) = setup();
    let other = MemoryScope::new("agent", "bob")?;
    let id = flows::save(&mut rows, &scope, tea(), &rules, now)
        .await?
        .entry
        .id;
    assert!(
        !flows::delete(&mut rows, &other, id, now).await?,
        "another scope's id is missing"
    );
    let record = UsageRecord::new("s", "tea", vec![id, 42, id], true);
    assert_eq!(
        flows::record_use(&mut rows, &scope, &record, &rules, now).await?,
        1
    );
    assert_eq!(rows.ran, ["store false", "INSERT INTO agcore_lt_usage_log"]);
    assert!(rows.entries[&id].weight > 1.0);
    rows.ran.clear();
    let later = now + chrono::Duration::days(3_650);
    rows.locked.clear();
    let report = flows::maintenance(&mut rows, &scope, &rules, later, later).await?;
    assert_eq!(rows.locked, [id], "the active entries are listed locked");
    assert_eq!((report.decayed, report.buffer_purged), (1, 1));
    assert_eq!(rows.ran, ["store false", "DELETE FROM agcore_lt_buffer"]);
    rows.ran.clear();
    assert!(flows::delete(&mut rows, &scope, id, now).await?);
    assert_eq!(rows.ran, ["INSERT INTO agcore_lt_history"]);
    assert!(rows.entries.is_empty());
    Ok(())
}

#[tokio::test]
async fn an_import_skips_known_text_and_fails_on_a_lost_insert() -> Result<(), MemoryError> {
    let (scope, rules, now, mut rows) = setup();
    let entry = super::super::apply::new_entry(&scope, tea(), &rules, now);
    let outcomes = flows::import(&mut rows, vec![entry.clone(), entry.clone()]).await?;
    let created: Vec<bool> = outcomes.iter().map(|o| o.created).collect();
    assert_eq!(created, [true, false]);
    let (_, _, _, mut rows) = setup();
    rows.lose_insert = true;
    let lost = flows::import(&mut rows, vec![entry]).await;
    assert!(matches!(lost, Err(MemoryError::Storage(_))));
    Ok(())
}
