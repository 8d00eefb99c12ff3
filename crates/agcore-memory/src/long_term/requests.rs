//! Options of searches and listings.

use serde::{Deserialize, Serialize};

use super::entry::{MemoryEntry, MemoryType};

/// Which entries a search or listing sees with respect to archiving.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ArchivedFilter {
    /// Only active entries (the default).
    #[default]
    Exclude,
    /// Active and archived entries.
    Include,
    /// Only archived entries.
    Only,
}

impl ArchivedFilter {
    /// Whether an entry with this archive flag passes.
    pub fn admits(self, archived: bool) -> bool {
        match self {
            Self::Exclude => !archived,
            Self::Include => true,
            Self::Only => archived,
        }
    }
}

/// Order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub enum ListOrder {
    /// Most recently updated first, then id descending (the default).
    #[default]
    RecentlyUpdated,
    /// Highest weight first, then id ascending.
    Weight,
    /// Oldest first (creation order, by id).
    Created,
}

impl ListOrder {
    /// This order as the terms of an SQL `ORDER BY` over the entries table
    /// aliased `m`, with its `weight`, `id` (ascending in creation order) and
    /// `updated_at` columns: the one mapping every SQL backend uses, so they
    /// list alike.
    pub const fn sql_order_by(self) -> &'static str {
        match self {
            Self::RecentlyUpdated => "m.updated_at DESC, m.id DESC",
            Self::Weight => "m.weight DESC, m.id ASC",
            Self::Created => "m.id ASC",
        }
    }
}

/// Options of a search: type filter, top-k, archived entries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SearchRequest {
    /// Only entries of this type.
    pub memory_type: Option<MemoryType>,
    /// At most this many hits, ≥ 1 (default 10).
    pub limit: usize,
    /// Archived entries (default: excluded).
    pub archived: ArchivedFilter,
}

impl Default for SearchRequest {
    fn default() -> Self {
        Self {
            memory_type: None,
            limit: 10,
            archived: ArchivedFilter::Exclude,
        }
    }
}

impl SearchRequest {
    /// Top-`limit` active entries of any type.
    pub fn top_k(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// Restricts to one type.
    #[must_use]
    pub fn of_type(mut self, memory_type: MemoryType) -> Self {
        self.memory_type = Some(memory_type);
        self
    }

    /// Sets the archived filter.
    #[must_use]
    pub fn archived(mut self, archived: ArchivedFilter) -> Self {
        self.archived = archived;
        self
    }
}

/// Options of a listing.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRequest {
    /// Only entries of this type.
    pub memory_type: Option<MemoryType>,
    /// Archived entries (default: excluded).
    pub archived: ArchivedFilter,
    /// Only entries with at least this weight.
    pub min_weight: Option<f64>,
    /// Order of the result.
    pub order: ListOrder,
    /// At most this many entries (`None`: all).
    pub limit: Option<usize>,
}

impl ListRequest {
    /// Every active entry, most recently updated first.
    pub fn all() -> Self {
        Self::default()
    }

    /// Core memories: active entries with weight ≥ `min_weight`, heaviest first.
    pub fn core(min_weight: f64) -> Self {
        Self {
            min_weight: Some(min_weight),
            order: ListOrder::Weight,
            ..Self::default()
        }
    }

    /// Archived entries only, most recently updated first.
    pub fn archived_only() -> Self {
        Self {
            archived: ArchivedFilter::Only,
            ..Self::default()
        }
    }

    /// Restricts to one type.
    #[must_use]
    pub fn of_type(mut self, memory_type: MemoryType) -> Self {
        self.memory_type = Some(memory_type);
        self
    }

    /// Sets the order.
    #[must_use]
    pub fn order(mut self, order: ListOrder) -> Self {
        self.order = order;
        self
    }

    /// Sets the limit.
    #[must_use]
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(limit);
        self
    }

    /// Whether `entry` passes the type, archive and weight conditions.
    pub fn admits(&self, entry: &MemoryEntry) -> bool {
        self.memory_type.is_none_or(|t| entry.memory_type == t)
            && self.archived.admits(entry.archived)
            && self.min_weight.is_none_or(|w| entry.weight >= w)
    }
}
