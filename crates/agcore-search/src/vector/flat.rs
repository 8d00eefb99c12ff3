//! [`FlatIndex`]: exact k-nearest-neighbour search by a full scan.

use std::sync::Arc;

use foldhash::HashMap;

use super::key::{VectorKey, dot};
use super::topk::TopK;

/// Exact cosine top-k over L2-normalised `f32` vectors kept contiguously.
///
/// Layout: one `Vec<f32>` of `len × dimensions` components (row `r` is
/// `data[r·d .. (r+1)·d]`), a key per row and a map key → row. Deleting
/// moves the last row into the hole (swap-remove), so rows stay dense.
/// Each namespace keeps the list of its rows, so a search in one namespace
/// ([`search_in`](Self::search_in)) reads that namespace's rows only, however
/// many other namespaces (users, agents) share the index.
/// Search scans every row (or those passing a predicate) and keeps the `k`
/// best with a bounded heap: `O(n·d + n·log k)` time, `O(k)` extra memory.
/// Ties rank by namespace then id, ascending.
///
/// This is the reference the approximate index is measured against.
#[derive(Debug, Clone)]
pub struct FlatIndex {
    dimensions: usize,
    data: Vec<f32>,
    keys: Vec<Arc<VectorKey>>,
    rows: HashMap<Arc<VectorKey>, usize>,
    /// The rows of each namespace, in no particular order.
    by_namespace: HashMap<String, Vec<usize>>,
    /// Per row: its position in its namespace's list.
    slots: Vec<usize>,
}

impl FlatIndex {
    /// An empty index of `dimensions`-long vectors.
    pub fn new(dimensions: usize) -> Self {
        Self {
            dimensions,
            data: Vec::new(),
            keys: Vec::new(),
            rows: HashMap::default(),
            by_namespace: HashMap::default(),
            slots: Vec::new(),
        }
    }

    /// Length of every vector.
    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the index holds no vector.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Inserts or replaces the vector of `key`; returns the shared key and
    /// whether a vector was replaced. `vector` must already be normalised
    /// and `dimensions` long (callers check length and finiteness first); a
    /// wrong length is ignored and returns `None`.
    pub fn upsert(&mut self, key: VectorKey, vector: &[f32]) -> Option<(Arc<VectorKey>, bool)> {
        if vector.len() != self.dimensions {
            return None;
        }
        if let Some((shared, &row)) = self.rows.get_key_value(&key) {
            let start = row.checked_mul(self.dimensions)?;
            let slot = self.data.get_mut(start..start + self.dimensions)?;
            slot.copy_from_slice(vector);
            return Some((Arc::clone(shared), true));
        }
        let shared = Arc::new(key);
        let row = self.keys.len();
        let list = self
            .by_namespace
            .entry(shared.namespace.clone())
            .or_default();
        self.slots.push(list.len());
        list.push(row);
        self.rows.insert(Arc::clone(&shared), row);
        self.keys.push(Arc::clone(&shared));
        self.data.extend_from_slice(vector);
        Some((shared, false))
    }

    /// Removes the vector of `key`; returns whether it existed.
    pub fn remove(&mut self, key: &VectorKey) -> bool {
        let Some(row) = self.rows.remove(key) else {
            return false;
        };
        self.unlist(&key.namespace, row);
        let last = self.keys.len().saturating_sub(1);
        let d = self.dimensions;
        if row != last {
            self.data.copy_within(last * d..(last + 1) * d, row * d);
            self.keys.swap(row, last);
            self.slots.swap(row, last);
            if let Some(moved) = self.keys.get(row) {
                self.rows.insert(Arc::clone(moved), row);
                // The moved row's namespace list pointed at `last`.
                let slot = self.slots.get(row).copied();
                if let (Some(list), Some(slot)) =
                    (self.by_namespace.get_mut(&moved.namespace), slot)
                    && let Some(entry) = list.get_mut(slot)
                {
                    *entry = row;
                }
            }
        }
        self.keys.truncate(last);
        self.slots.truncate(last);
        self.data.truncate(last * d);
        true
    }

    /// Takes `row` out of `namespace`'s row list (swap-remove, fixing the
    /// slot of the row moved into its place).
    fn unlist(&mut self, namespace: &str, row: usize) {
        let Some(slot) = self.slots.get(row).copied() else {
            return;
        };
        let Some(list) = self.by_namespace.get_mut(namespace) else {
            return;
        };
        if slot >= list.len() {
            return;
        }
        list.swap_remove(slot);
        if let Some(&moved) = list.get(slot)
            && let Some(moved_slot) = self.slots.get_mut(moved)
        {
            *moved_slot = slot;
        }
        if list.is_empty() {
            self.by_namespace.remove(namespace);
        }
    }

    /// The stored (normalised) vector of `key`.
    pub fn get(&self, key: &VectorKey) -> Option<&[f32]> {
        self.rows.get(key).and_then(|&row| self.row(row))
    }

    /// The shared key stored for `key`.
    pub fn shared_key(&self, key: &VectorKey) -> Option<&Arc<VectorKey>> {
        self.rows.get_key_value(key).map(|(k, _)| k)
    }

    /// The vector of row `row` (`0..len`).
    pub fn row(&self, row: usize) -> Option<&[f32]> {
        let start = row.checked_mul(self.dimensions)?;
        self.data.get(start..start.checked_add(self.dimensions)?)
    }

    /// Every `(key, vector)`, in row order.
    pub fn iter(&self) -> impl Iterator<Item = (&Arc<VectorKey>, &[f32])> {
        self.keys
            .iter()
            .zip(self.data.chunks_exact(self.dimensions.max(1)))
    }

    /// The `k` vectors most similar to the normalised `query` among those
    /// whose key passes `accept`, best first, as `(score, key)`.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        accept: impl Fn(&VectorKey) -> bool,
    ) -> Vec<(f32, Arc<VectorKey>)> {
        if k == 0 || query.len() != self.dimensions {
            return Vec::new();
        }
        let mut top = TopK::new(k);
        for (key, vector) in self.iter() {
            if accept(key) {
                top.push(dot(query, vector), key);
            }
        }
        top.into_sorted()
            .into_iter()
            .map(|(score, key)| (score, Arc::clone(key)))
            .collect()
    }

    /// Number of vectors in `namespace`.
    pub fn namespace_len(&self, namespace: &str) -> usize {
        self.by_namespace.get(namespace).map_or(0, Vec::len)
    }

    /// [`search`](Self::search) restricted to `namespace`: only its rows
    /// are read (and offered to `accept`, which need not check the
    /// namespace again), so the cost is `O(m·d + m·log k)` for its `m` vectors.
    pub fn search_in(
        &self,
        namespace: &str,
        query: &[f32],
        k: usize,
        accept: impl Fn(&VectorKey) -> bool,
    ) -> Vec<(f32, Arc<VectorKey>)> {
        if k == 0 || query.len() != self.dimensions {
            return Vec::new();
        }
        let mut top = TopK::new(k);
        for &row in self.by_namespace.get(namespace).into_iter().flatten() {
            if let (Some(key), Some(vector)) = (self.keys.get(row), self.row(row))
                && accept(key)
            {
                top.push(dot(query, vector), key);
            }
        }
        top.into_sorted()
            .into_iter()
            .map(|(score, key)| (score, Arc::clone(key)))
            .collect()
    }

    /// Every namespace holding vectors, with its vector count, in no
    /// particular order.
    pub fn namespaces(&self) -> impl Iterator<Item = (&str, usize)> {
        self.by_namespace
            .iter()
            .map(|(namespace, rows)| (namespace.as_str(), rows.len()))
    }

    /// A new index holding a copy of `namespace`'s vectors only.
    pub fn namespace_copy(&self, namespace: &str) -> Self {
        let mut copy = Self::new(self.dimensions);
        for &row in self.by_namespace.get(namespace).into_iter().flatten() {
            if let (Some(key), Some(vector)) = (self.keys.get(row), self.row(row)) {
                copy.upsert(VectorKey::clone(key), vector);
            }
        }
        copy
    }

    /// The keys of `namespace` (every key when `None`), in no particular order.
    pub fn keys_in<'a>(
        &'a self,
        namespace: Option<&str>,
    ) -> Box<dyn Iterator<Item = &'a Arc<VectorKey>> + 'a> {
        match namespace {
            None => Box::new(self.keys.iter()),
            Some(namespace) => Box::new(
                self.by_namespace
                    .get(namespace)
                    .into_iter()
                    .flatten()
                    .filter_map(|&row| self.keys.get(row)),
            ),
        }
    }
}
