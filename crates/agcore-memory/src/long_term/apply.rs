//! The field-level rules every [`LongTermBackend`](super::LongTermBackend)
//! applies, so that backends differ only in storage: building a new entry,
//! merging a duplicate save into an existing entry, applying an update, a use
//! and age decay. Backends call these and store the result.

use chrono::{DateTime, Utc};

use super::changes::{MemoryUpdate, NewMemory};
use super::entry::MemoryEntry;
use super::limits::validate_fields;
use super::normalize::{normalize_tags, validate_content, validate_weight};
use super::scope::MemoryScope;
use super::weights::{MIN_DECAY, WeightRules};
use crate::MemoryError;

/// A fresh entry (id 0 until the backend assigns one).
pub fn new_entry(
    scope: &MemoryScope,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> MemoryEntry {
    MemoryEntry {
        id: 0,
        agent_name: scope.agent().to_owned(),
        user_id: scope.user().to_owned(),
        memory_type: new.memory_type,
        name: new.name,
        content: new.content,
        description: new.description,
        metadata: new.metadata,
        tags: normalize_tags(&new.tags),
        weight: rules.clamp(new.weight.unwrap_or(rules.initial)),
        archived: false,
        use_count: 0,
        last_used_at: None,
        weight_updated_at: now,
        created_at: now,
        updated_at: now,
    }
}

/// Merges a save of the same content into `entry`: text, title, type and
/// (when given) description from `new`; tags united; metadata merged with
/// `new`'s keys winning; weight the larger of both; un-archived.
pub fn merge_duplicate(
    entry: &mut MemoryEntry,
    new: NewMemory,
    rules: &WeightRules,
    now: DateTime<Utc>,
) {
    entry.content = new.content;
    entry.name = new.name;
    entry.memory_type = new.memory_type;
    if !new.description.trim().is_empty() {
        entry.description = new.description;
    }
    let mut tags = std::mem::take(&mut entry.tags);
    tags.extend(new.tags);
    entry.tags = normalize_tags(&tags);
    entry.metadata.extend(new.metadata);
    let incoming = rules.clamp(new.weight.unwrap_or(rules.initial));
    if incoming > entry.weight {
        entry.weight = incoming;
        entry.weight_updated_at = now;
    }
    entry.archived = false;
    entry.updated_at = now;
}

/// Checks the fields `update` sets: content, weight and the size limits of
/// `docs/memory.md`, *Entries and types*.
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the first bad field.
pub fn validate_update(update: &MemoryUpdate) -> Result<(), MemoryError> {
    if let Some(content) = &update.content {
        validate_content(content)?;
    }
    if let Some(w) = update.weight {
        validate_weight(w)?;
    }
    validate_fields(
        update.name.as_deref(),
        update.description.as_deref(),
        update.tags.as_deref(),
        update.metadata.as_ref(),
    )
}

/// Applies `update` to `entry`; returns the previous `(name, content)` when the
/// content changed or `update.record_history` is set (the caller writes it
/// to the history).
///
/// # Errors
/// [`MemoryError::InvalidInput`] for empty/oversized content or a non-finite
/// weight (the entry is left unchanged).
pub fn apply_update(
    entry: &mut MemoryEntry,
    update: MemoryUpdate,
    rules: &WeightRules,
    now: DateTime<Utc>,
) -> Result<Option<(String, String)>, MemoryError> {
    validate_update(&update)?;
    let old = (entry.name.clone(), entry.content.clone());
    let mut changed_content = false;
    if let Some(content) = update.content {
        changed_content = content != entry.content;
        entry.content = content;
    }
    if let Some(name) = update.name.filter(|n| !n.trim().is_empty()) {
        entry.name = name;
    }
    if let Some(description) = update.description {
        entry.description = description;
    }
    if let Some(t) = update.memory_type {
        entry.memory_type = t;
    }
    if let Some(metadata) = update.metadata {
        entry.metadata = metadata;
    }
    if let Some(tags) = update.tags {
        entry.tags = normalize_tags(&tags);
    }
    if let Some(w) = update.weight {
        entry.weight = rules.clamp(w);
        entry.weight_updated_at = now;
    }
    if let Some(archived) = update.archived {
        entry.archived = archived;
    }
    entry.updated_at = now;
    Ok((changed_content || update.record_history).then_some(old))
}

/// Applies one use to `entry` ([`WeightRules::after_use`]).
pub fn apply_use(
    entry: &mut MemoryEntry,
    referenced: bool,
    rules: &WeightRules,
    now: DateTime<Utc>,
) {
    entry.weight = rules.after_use(entry.weight, referenced);
    entry.weight_updated_at = now;
    entry.use_count = entry.use_count.saturating_add(1);
    entry.last_used_at = Some(now);
}

/// Ages `entry` to `now` and archives it below the threshold; returns
/// `(decayed, archived)`. A decay smaller than [`MIN_DECAY`] is not applied
/// (weight and `weight_updated_at` stay, so it is applied in full by a later
/// run: frequent runs lose nothing and rewrite nothing).
pub fn apply_age(entry: &mut MemoryEntry, rules: &WeightRules, now: DateTime<Utc>) -> (bool, bool) {
    let aged = rules.after_age(entry.weight, entry.weight_updated_at, now);
    let decayed = entry.weight - aged >= MIN_DECAY;
    if decayed {
        entry.weight = aged;
        entry.weight_updated_at = now;
    }
    let archive = entry.weight < rules.archive_threshold;
    if archive {
        entry.archived = true;
        entry.updated_at = now;
    }
    (decayed, archive)
}
