//! The per-scope state of [`InMemoryLongTerm`](super::InMemoryLongTerm):
//! entries with their search terms, the key index, history, usage log and
//! dialogue buffer, and the scope-local search, listing and maintenance.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};

use crate::long_term::apply::apply_age;
use crate::long_term::backend::{
    DialogueTurn, HistoryEntry, ListOrder, ListRequest, MaintenanceReport, ScoredEntry,
    SearchRequest, UsageLogRow,
};
use crate::long_term::entry::MemoryEntry;
use crate::long_term::weights::WeightRules;
use crate::retriever::{Bm25, Scorer, index_terms};

#[derive(Debug)]
pub(super) struct Stored {
    pub(super) entry: MemoryEntry,
    terms: Vec<String>,
}

impl Stored {
    pub(super) fn new(entry: MemoryEntry) -> Self {
        let terms = index_terms(&entry.search_text());
        Self { entry, terms }
    }
}

#[derive(Debug)]
pub(super) struct BufferedTurn {
    pub(super) turn: DialogueTurn,
    pub(super) applied_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Default)]
pub(super) struct ScopeData {
    pub(super) entries: BTreeMap<i64, Stored>,
    pub(super) keys: HashMap<String, i64>,
    pub(super) history: Vec<HistoryEntry>,
    pub(super) usage: Vec<UsageLogRow>,
    pub(super) buffer: Vec<BufferedTurn>,
}

fn sort_list(entries: &mut [MemoryEntry], order: ListOrder) {
    match order {
        ListOrder::Weight => {
            entries.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.id.cmp(&b.id)))
        }
        ListOrder::Created => entries.sort_by_key(|e| e.id),
        _ => entries.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then(b.id.cmp(&a.id))),
    }
}

impl ScopeData {
    /// BM25 ([`Bm25`]) over the admitted entries' terms; best first, ties by id.
    pub(super) fn search(&self, query: &str, request: &SearchRequest) -> Vec<ScoredEntry> {
        let query_terms = crate::retriever::query_terms(query);
        if query_terms.is_empty() || request.limit == 0 {
            return Vec::new();
        }
        let candidates: Vec<&Stored> = self
            .entries
            .values()
            .filter(|s| request.memory_type.is_none_or(|t| s.entry.memory_type == t))
            .filter(|s| request.archived.admits(s.entry.archived))
            .collect();
        let docs: Vec<Vec<String>> = candidates.iter().map(|s| s.terms.clone()).collect();
        let scores = Bm25::default().score_all(&query_terms, &docs);
        let mut hits: Vec<ScoredEntry> = candidates
            .into_iter()
            .zip(scores)
            .filter(|(_, score)| *score > 0.0)
            .map(|(s, score)| ScoredEntry {
                entry: s.entry.clone(),
                score,
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.entry.id.cmp(&b.entry.id))
        });
        hits.truncate(request.limit);
        hits
    }

    /// The admitted entries in the requested order, limited.
    pub(super) fn list(&self, request: &ListRequest) -> Vec<MemoryEntry> {
        let mut out: Vec<MemoryEntry> = self
            .entries
            .values()
            .map(|s| &s.entry)
            .filter(|e| request.admits(e))
            .cloned()
            .collect();
        sort_list(&mut out, request.order);
        if let Some(limit) = request.limit {
            out.truncate(limit);
        }
        out
    }

    /// Age decay and archiving of active entries, purge of old applied turns.
    pub(super) fn maintenance(
        &mut self,
        rules: &WeightRules,
        now: DateTime<Utc>,
        purge_before: DateTime<Utc>,
    ) -> MaintenanceReport {
        let mut report = MaintenanceReport::default();
        for stored in self.entries.values_mut().filter(|s| !s.entry.archived) {
            let (decayed, archived) = apply_age(&mut stored.entry, rules, now);
            report.decayed += usize::from(decayed);
            report.archived += usize::from(archived);
        }
        let before = self.buffer.len();
        self.buffer
            .retain(|t| t.applied_at.is_none_or(|at| at >= purge_before));
        report.buffer_purged = before - self.buffer.len();
        report.active = self.entries.values().filter(|s| !s.entry.archived).count();
        report
    }
}
