//! The [`LongTermBackend`] of [`SqlLongTerm`], for every SQL driver — each
//! method one transaction or statement of the driver ([`SqlDriver`]) over
//! the shared [`flows`](super::flows).

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::super::backend::{
    DialogueTurn, HistoryEntry, HistoryReason, ListRequest, LongTermBackend, MaintenanceReport,
    SaveOutcome, ScoredEntry, SearchRequest, UsageLogRow, UsageRecord,
};
use super::super::changes::{MemoryUpdate, NewMemory};
use super::super::dedupe::{Duplicate, TermSet};
use super::super::entry::MemoryEntry;
use super::super::scope::MemoryScope;
use super::super::weights::WeightRules;
use super::SqlLongTerm;
use super::driver::{Access, SqlDriver, WriteIntent, work};
use super::{entries, flows, statements};
use crate::MemoryError;

#[async_trait]
impl<D: SqlDriver> LongTermBackend for SqlLongTerm<D> {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<SaveOutcome, MemoryError> {
        let intent = WriteIntent::Save {
            scope,
            new: &new,
            rules,
            now,
        };
        let (owned, rules) = ((scope.clone(), new.clone()), *rules);
        let work = work(move |rows| {
            let (scope, new) = owned.clone();
            Box::pin(async move { flows::save(rows, &scope, new, &rules, now).await })
        });
        self.driver.write(intent, work).await
    }

    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<MemoryEntry, MemoryError> {
        let intent = WriteIntent::Update {
            scope,
            update: &update,
        };
        let (owned, rules) = ((scope.clone(), update.clone()), *rules);
        let work = work(move |rows| {
            let (scope, update) = owned.clone();
            let change = (id, update, reason);
            Box::pin(async move { flows::update(rows, &scope, change, &rules, now).await })
        });
        self.driver.write(intent, work).await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> Result<bool, MemoryError> {
        let scope = scope.clone();
        let work = work(move |rows| {
            let scope = scope.clone();
            Box::pin(async move { flows::delete(rows, &scope, id, now).await })
        });
        self.driver.write(WriteIntent::Other, work).await
    }

    async fn get(&self, scope: &MemoryScope, id: i64) -> Result<Option<MemoryEntry>, MemoryError> {
        self.call(Access::Read, scope.clone(), move |rows, scope| {
            Box::pin(async move { entries::load(rows, &scope, id, false).await })
        })
        .await
    }

    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> Result<Vec<Option<MemoryEntry>>, MemoryError> {
        let input = (scope.clone(), ids.to_vec());
        self.call(Access::Read, input, |rows, (scope, ids)| {
            Box::pin(async move { rows.load_many(&scope, &ids).await })
        })
        .await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> Result<Option<MemoryEntry>, MemoryError> {
        let input = (scope.clone(), key.to_owned());
        self.call(Access::Read, input, |rows, (scope, key)| {
            Box::pin(async move { flows::find_by_key(rows, &scope, &key).await })
        })
        .await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<HistoryEntry>, MemoryError> {
        self.call(Access::Read, scope.clone(), move |rows, scope| {
            Box::pin(async move { statements::history(rows, &scope, id).await })
        })
        .await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> Result<Vec<ScoredEntry>, MemoryError> {
        self.driver.search(scope, query, request).await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> Result<Vec<MemoryEntry>, MemoryError> {
        let input = (scope.clone(), request.clone());
        self.call(Access::Read, input, |rows, (scope, request)| {
            Box::pin(async move { entries::list(rows, &scope, &request, false).await })
        })
        .await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let (owned, rules) = ((scope.clone(), record), *rules);
        let work = work(move |rows| {
            let (scope, record) = owned.clone();
            Box::pin(async move { flows::record_use(rows, &scope, &record, &rules, now).await })
        });
        self.driver.write(WriteIntent::Other, work).await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> Result<Vec<UsageLogRow>, MemoryError> {
        self.call(Access::Read, scope.clone(), move |rows, scope| {
            Box::pin(async move { statements::usage_log(rows, &scope, id).await })
        })
        .await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        self.call(Access::Update, scope.clone(), move |rows, scope| {
            Box::pin(async move { statements::archive_below(rows, &scope, threshold, now).await })
        })
        .await
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> Result<MaintenanceReport, MemoryError> {
        let driver = &self.driver;
        driver.maintenance(scope, rules, now, purge_before).await
    }

    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let driver = &self.driver;
        driver
            .supersede_duplicates(scope, duplicates, rules, now)
            .await
    }

    async fn dedupe_terms(&self, scope: &MemoryScope) -> Result<Vec<TermSet>, MemoryError> {
        self.driver.dedupe_terms(scope).await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> Result<DialogueTurn, MemoryError> {
        let turn = (user_query.to_owned(), assistant_response.to_owned());
        let input = (scope.clone(), session_id.to_owned(), turn);
        self.call(
            Access::Insert,
            input,
            move |rows, (scope, session, turn)| {
                Box::pin(async move {
                    let turn = (turn.0.as_str(), turn.1.as_str());
                    rows.buffer_append(&scope, &session, turn, now).await
                })
            },
        )
        .await
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> Result<Vec<DialogueTurn>, MemoryError> {
        let input = (scope.clone(), session_id.to_owned());
        self.call(Access::Read, input, move |rows, (scope, session)| {
            Box::pin(async move { statements::buffer_pending(rows, &scope, &session, limit).await })
        })
        .await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> Result<usize, MemoryError> {
        let input = (scope.clone(), session_id.to_owned());
        self.call(Access::Update, input, move |rows, (scope, session)| {
            Box::pin(async move {
                statements::buffer_mark_applied(rows, &scope, (&session, up_to), now).await
            })
        })
        .await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> Result<Vec<SaveOutcome>, MemoryError> {
        let work = work(move |rows| {
            let entries = entries.clone();
            Box::pin(async move { flows::import(rows, entries).await })
        });
        self.driver.write(WriteIntent::Other, work).await
    }

    async fn scopes(&self) -> Result<Vec<MemoryScope>, MemoryError> {
        self.call(Access::Read, (), |rows, ()| {
            Box::pin(async move { statements::scopes(rows).await })
        })
        .await
    }

    async fn close(&self) -> Result<(), MemoryError> {
        self.driver.close().await
    }
}
