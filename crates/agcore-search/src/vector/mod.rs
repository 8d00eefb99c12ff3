//! Nearest-neighbour search over dense `f32` vectors by cosine similarity.
//!
//! Vectors are expected L2-normalised (unit length), so the cosine of two is
//! their dot product ([`dot`]), in `[-1, 1]`. Each vector is keyed by a
//! [`VectorKey`] `(namespace, id)`; hits rank by score, ties by namespace
//! then id ([`rank_order`]).
//!
//! - [`FlatIndex`]: exact top-k by a full scan (per namespace), the
//!   reference approximate search is measured against.
//! - [`HnswIndex`]: approximate search over a Hierarchical Navigable Small
//!   World graph (Malkov & Yashunin 2018), with tombstones for deletes and
//!   over-fetching for filters.
//! - [`TopK`]: the bounded heap both select the `k` best with.

mod flat;
mod hnsw;
mod key;
mod topk;

pub use flat::FlatIndex;
pub use hnsw::{HnswConfig, HnswIndex, UnitCosine};
pub use key::{VectorKey, dot, l2_normalize, rank_order};
pub use topk::TopK;
