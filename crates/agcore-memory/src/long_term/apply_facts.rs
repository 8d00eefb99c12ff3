//! Applying extracted facts to a scope ([`ScopedMemory::apply_facts`]) and
//! detecting which memories a reply referenced.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::changes::{MemoryUpdate, NewMemory};
use super::entry::MemoryEntry;
use super::fact::Fact;
use super::normalize::derive_name;
use super::scoped::ScopedMemory;
use crate::MemoryError;
use crate::retriever::unique_keywords;

/// What [`ScopedMemory::apply_facts`] did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct FactReport {
    /// Ids of new entries.
    pub created: Vec<i64>,
    /// Ids of entries a fact duplicated (updated in place).
    pub updated: Vec<i64>,
    /// Ids of entries whose text a fact replaced (old text in the history).
    pub superseded: Vec<i64>,
    /// Facts below the confidence bar.
    pub below_confidence: usize,
    /// Facts refused, with the reason.
    pub rejected: Vec<String>,
}

impl ScopedMemory {
    /// Applies extracted facts with confidence ≥ `min_confidence`, in order:
    /// a fact whose `replace` names the id of a memory of this scope
    /// supersedes it, keeping the old text in the history; a `replace` naming
    /// an id this scope does not hold (another scope's, or none) refuses the
    /// fact; otherwise it is saved (a duplicate updates the existing entry).
    /// When the replacing text already exists as another entry, the replaced
    /// entry is archived (never deleted). Metadata gets `source =
    /// "extraction"`, the confidence and, when the extractor gave a finer
    /// type, [`FACT_TYPE_KEY`](super::FACT_TYPE_KEY). Invalid facts are
    /// listed in [`FactReport::rejected`] and the others still applied.
    ///
    /// # Errors
    /// [`MemoryError::Storage`] (facts applied before the failure stay applied).
    pub async fn apply_facts(
        &self,
        facts: Vec<Fact>,
        min_confidence: f64,
    ) -> Result<FactReport, MemoryError> {
        let mut report = FactReport::default();
        for fact in facts {
            if fact.confidence.is_nan() || fact.confidence < min_confidence {
                report.below_confidence += 1;
                continue;
            }
            match self.apply_fact(fact, &mut report).await {
                Ok(()) => {}
                Err(MemoryError::InvalidInput(reason)) => report.rejected.push(reason),
                Err(other) => return Err(other),
            }
        }
        Ok(report)
    }

    async fn apply_fact(&self, fact: Fact, report: &mut FactReport) -> Result<(), MemoryError> {
        let mut metadata = serde_json::Map::new();
        metadata.insert("source".into(), "extraction".into());
        metadata.insert("confidence".into(), fact.confidence.into());
        if let Some(word) = &fact.fact_type {
            metadata.insert(super::fact::FACT_TYPE_KEY.into(), word.clone().into());
        }
        if let Some(old_id) = fact.replace {
            let old = self.get(old_id).await?.ok_or_else(|| {
                MemoryError::InvalidInput(format!(
                    "fact `{}`: replace names memory {old_id}, which this scope does not hold",
                    fact.content
                ))
            })?;
            let mut tags = old.tags.clone();
            tags.extend(fact.tags.iter().cloned());
            let mut merged = old.metadata.clone();
            merged.extend(metadata.clone());
            let update = MemoryUpdate::new()
                .content(fact.content.clone())
                .name(derive_name(&fact.content))
                .memory_type(fact.memory_type)
                .tags(tags)
                .metadata(merged);
            let changed = self
                .backend_ref()
                .update(
                    self.scope(),
                    old.id,
                    update,
                    super::HistoryReason::Supersede,
                    self.rules(),
                    super::normalize::now(),
                )
                .await;
            match changed {
                Ok(entry) => {
                    report.superseded.push(entry.id);
                    return Ok(());
                }
                Err(MemoryError::AlreadyExists(_)) => {
                    self.update(old.id, MemoryUpdate::new().archived(true))
                        .await?;
                    report.superseded.push(old.id);
                }
                Err(other) => return Err(other),
            }
        }
        metadata.insert("source".into(), "extraction".into());
        let new = NewMemory::new(fact.memory_type, String::new(), fact.content)
            .with_tags(fact.tags)
            .with_metadata(metadata);
        let saved = self.save(new).await?;
        if saved.created {
            report.created.push(saved.entry.id);
        } else {
            report.updated.push(saved.entry.id);
        }
        Ok(())
    }
}

/// The ids of the `memories` a `reply` referenced (by keywords; see
/// `docs/memory.md`, *Weights, usage and archiving*): a memory counts when
/// at least `min_overlap` (0–1) of the
/// distinct keywords of its content (CJK as bigrams) occur in the reply.
/// A memory without keywords is never referenced.
///
/// # Examples
/// ```
/// use agcore_memory::long_term::{detect_references, MemoryEntry};
/// # fn entry(id: i64, content: &str) -> MemoryEntry {
/// #     let now = chrono::Utc::now();
/// #     MemoryEntry { id, agent_name: "a".into(), user_id: "u".into(),
/// #         memory_type: agcore_memory::long_term::MemoryType::User, name: String::new(),
/// #         content: content.into(), description: String::new(), metadata: Default::default(),
/// #         tags: vec![], weight: 1.0, archived: false, use_count: 0, last_used_at: None,
/// #         weight_updated_at: now, created_at: now, updated_at: now }
/// # }
/// let memories = [entry(1, "prefers green tea"), entry(2, "works on the payment module")];
/// assert_eq!(detect_references("Here is some green tea for you", &memories, 0.6), vec![1]);
/// ```
pub fn detect_references(reply: &str, memories: &[MemoryEntry], min_overlap: f64) -> Vec<i64> {
    let reply_terms: HashSet<String> = unique_keywords(reply).into_iter().collect();
    memories
        .iter()
        .filter(|m| {
            let terms = unique_keywords(&m.content);
            if terms.is_empty() {
                return false;
            }
            let hits = terms.iter().filter(|t| reply_terms.contains(*t)).count();
            #[allow(clippy::cast_precision_loss)]
            let overlap = hits as f64 / terms.len() as f64;
            overlap >= min_overlap
        })
        .map(|m| m.id)
        .collect()
}
