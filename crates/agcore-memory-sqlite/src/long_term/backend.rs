//! [`LongTermBackend`] for [`SqliteLongTerm`]: each operation runs on the
//! writer thread (writes) or a reader connection (reads).

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    DialogueTurn, Duplicate, HistoryEntry, HistoryReason, ListRequest, LongTermBackend,
    MaintenanceReport, MemoryEntry, MemoryScope, MemoryUpdate, NewMemory, SaveOutcome, ScoredEntry,
    SearchRequest, TermSet, UsageLogRow, UsageRecord, WeightRules,
};
use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::{SqliteLongTerm, buffer, import, ops, reads, rows, search, upkeep};

#[async_trait]
impl LongTermBackend for SqliteLongTerm {
    async fn save(
        &self,
        scope: &MemoryScope,
        new: NewMemory,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<SaveOutcome, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::save(c, &scope, new, &rules, now))
            .await
    }

    async fn update(
        &self,
        scope: &MemoryScope,
        id: i64,
        update: MemoryUpdate,
        reason: HistoryReason,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<MemoryEntry, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::update(c, &scope, id, update, reason, &rules, now))
            .await
    }

    async fn delete(
        &self,
        scope: &MemoryScope,
        id: i64,
        now: DateTime<Utc>,
    ) -> std::result::Result<bool, MemoryError> {
        let scope = scope.clone();
        self.run(move |c| ops::delete(c, &scope, id, now)).await
    }

    async fn get(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Option<MemoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| rows::load(c, &scope, id)).await
    }

    /// One read task for every id.
    async fn get_many(
        &self,
        scope: &MemoryScope,
        ids: &[i64],
    ) -> std::result::Result<Vec<Option<MemoryEntry>>, MemoryError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let (scope, ids) = (scope.clone(), ids.to_vec());
        self.read(move |c| ids.iter().map(|&id| rows::load(c, &scope, id)).collect())
            .await
    }

    async fn find_by_key(
        &self,
        scope: &MemoryScope,
        key: &str,
    ) -> std::result::Result<Option<MemoryEntry>, MemoryError> {
        let (scope, key) = (scope.clone(), key.to_owned());
        self.read(move |c| reads::find_by_key(c, &scope, &key))
            .await
    }

    async fn history(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Vec<HistoryEntry>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| reads::history(c, &scope, id)).await
    }

    async fn search(
        &self,
        scope: &MemoryScope,
        query: &str,
        request: &SearchRequest,
    ) -> std::result::Result<Vec<ScoredEntry>, MemoryError> {
        let (scope, query, request) = (scope.clone(), query.to_owned(), request.clone());
        self.read(move |c| search::search(c, &scope, &query, &request))
            .await
    }

    async fn list(
        &self,
        scope: &MemoryScope,
        request: &ListRequest,
    ) -> std::result::Result<Vec<MemoryEntry>, MemoryError> {
        let (scope, request) = (scope.clone(), request.clone());
        self.read(move |c| reads::list(c, &scope, &request)).await
    }

    async fn record_use(
        &self,
        scope: &MemoryScope,
        record: UsageRecord,
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| ops::record_use(c, &scope, &record, &rules, now))
            .await
    }

    async fn usage_log(
        &self,
        scope: &MemoryScope,
        id: i64,
    ) -> std::result::Result<Vec<UsageLogRow>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| buffer::usage_log(c, &scope, id)).await
    }

    async fn archive_below(
        &self,
        scope: &MemoryScope,
        threshold: f64,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let scope = scope.clone();
        self.run(move |c| ops::archive_below(c, &scope, threshold, now))
            .await
    }

    async fn maintenance(
        &self,
        scope: &MemoryScope,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> std::result::Result<MaintenanceReport, MemoryError> {
        let (scope, rules) = (scope.clone(), *rules);
        self.run(move |c| upkeep::maintenance(c, &scope, &rules, now, purge_before))
            .await
    }

    async fn supersede_duplicates(
        &self,
        scope: &MemoryScope,
        duplicates: &[Duplicate],
        rules: &WeightRules,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let (scope, rules, duplicates) = (scope.clone(), *rules, duplicates.to_vec());
        self.run(move |c| ops::supersede_duplicates(c, &scope, &duplicates, &rules, now))
            .await
    }

    async fn dedupe_terms(
        &self,
        scope: &MemoryScope,
    ) -> std::result::Result<Vec<TermSet>, MemoryError> {
        let scope = scope.clone();
        self.read(move |c| upkeep::dedupe_terms(c, &scope)).await
    }

    async fn buffer_append(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        user_query: &str,
        assistant_response: &str,
        now: DateTime<Utc>,
    ) -> std::result::Result<DialogueTurn, MemoryError> {
        let (scope, session, user, reply) = (
            scope.clone(),
            session_id.to_owned(),
            user_query.to_owned(),
            assistant_response.to_owned(),
        );
        self.run(move |c| buffer::buffer_append(c, &scope, &session, &user, &reply, now))
            .await
    }

    async fn buffer_pending(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        limit: usize,
    ) -> std::result::Result<Vec<DialogueTurn>, MemoryError> {
        let (scope, session) = (scope.clone(), session_id.to_owned());
        self.read(move |c| buffer::buffer_pending(c, &scope, &session, limit))
            .await
    }

    async fn buffer_mark_applied(
        &self,
        scope: &MemoryScope,
        session_id: &str,
        up_to: i64,
        now: DateTime<Utc>,
    ) -> std::result::Result<usize, MemoryError> {
        let (scope, session) = (scope.clone(), session_id.to_owned());
        self.run(move |c| buffer::buffer_mark_applied(c, &scope, &session, up_to, now))
            .await
    }

    async fn import_entries(
        &self,
        entries: Vec<MemoryEntry>,
    ) -> std::result::Result<Vec<SaveOutcome>, MemoryError> {
        self.run(move |c| import::import_all(c, entries)).await
    }

    async fn scopes(&self) -> std::result::Result<Vec<MemoryScope>, MemoryError> {
        self.read(|c| buffer::scopes(c)).await
    }

    async fn close(&self) -> std::result::Result<(), MemoryError> {
        self.db.close().await
    }
}
