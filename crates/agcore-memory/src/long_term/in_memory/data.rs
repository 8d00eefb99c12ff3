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
use crate::retriever::{Bm25, index_terms};
use agcore_search::{capped_query_terms, fts5_tf_part};

#[derive(Debug)]
pub(super) struct Stored {
    pub(super) entry: MemoryEntry,
    /// Number of index terms (with repeats): BM25's document length.
    len: f64,
    /// Frequency of each index term of the entry's search text.
    tfs: HashMap<String, u32>,
}

impl Stored {
    #[allow(clippy::cast_precision_loss)]
    pub(super) fn new(entry: MemoryEntry) -> Self {
        let terms = index_terms(&entry.search_text());
        let len = terms.len() as f64;
        let mut tfs: HashMap<String, u32> = HashMap::new();
        for term in terms {
            *tfs.entry(term).or_insert(0) += 1;
        }
        Self { entry, len, tfs }
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
    /// BM25 with SQLite FTS5 `bm25()`'s formula ([`Bm25::fts5_idf`],
    /// [`fts5_tf_part`]) over the scope's whole collection: N, document
    /// frequencies and the mean length count every entry of the scope
    /// (archived ones and every type), as in the database backends, so the
    /// scores equal theirs. Then the request's filters; best first, ties by
    /// id.
    #[allow(clippy::cast_precision_loss)]
    pub(super) fn search(&self, query: &str, request: &SearchRequest) -> Vec<ScoredEntry> {
        let terms = capped_query_terms(query);
        if terms.is_empty() || request.limit == 0 {
            return Vec::new();
        }
        let counted: Vec<(f64, &HashMap<String, u32>)> =
            self.entries.values().map(|s| (s.len, &s.tfs)).collect();
        let n = counted.len() as f64;
        let avg_len = counted.iter().map(|(len, _)| len).sum::<f64>() / n.max(1.0);
        let idfs: Vec<(&str, f64)> = terms
            .iter()
            .map(|t| {
                let df = counted.iter().filter(|(_, m)| m.contains_key(t.as_str()));
                let df = df.count() as f64;
                let idf = if df > 0.0 { Bm25::fts5_idf(n, df) } else { 0.0 };
                (t.as_str(), idf)
            })
            .collect();
        let mut hits: Vec<ScoredEntry> = Vec::new();
        for (stored, (len, tfs)) in self.entries.values().zip(&counted) {
            let entry = &stored.entry;
            if !request.archived.admits(entry.archived)
                || request.memory_type.is_some_and(|t| entry.memory_type != t)
            {
                continue;
            }
            let score = idfs.iter().fold(0.0, |score, &(term, idf)| {
                let tf = f64::from(tfs.get(term).copied().unwrap_or(0));
                score + idf * fts5_tf_part(tf, *len, avg_len)
            });
            if score > 0.0 && score.is_finite() {
                hits.push(ScoredEntry {
                    entry: entry.clone(),
                    score,
                });
            }
        }
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
