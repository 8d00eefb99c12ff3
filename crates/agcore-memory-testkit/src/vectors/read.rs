//! Reading stored vectors back by id.

use std::sync::Arc;

use super::values::{axis, record, strings};
use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::vector::VectorStore;

/// `vectors` answers in the order asked with the stored vector, unit
/// length (a store keeps vectors L2-normalised), `None` for ids without a
/// vector or in another namespace, and nothing for no ids.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_read_vectors(store: Arc<dyn VectorStore>) -> CheckResult {
    let d = store.space().dimensions;
    // (3, 4, 0, …): stored as (0.6, 0.8, 0, …).
    let long: Vec<f32> = (0..d)
        .map(|i| match i {
            0 => 3.0,
            1 => 4.0,
            _ => 0.0,
        })
        .collect();
    store
        .upsert(vec![
            record("s", "long", long),
            record("s", "axis", axis(d, 2)),
        ])
        .await?;
    let got = store
        .vectors("s", &strings(&["axis", "none", "long"]))
        .await?;
    let [axis_got, none_got, long_got] = got.as_slice() else {
        return Err(CheckFailure(format!("3 ids gave {} answers", got.len())));
    };
    let close = |v: &Option<Vec<f32>>, want: &[(usize, f32)]| {
        v.as_ref().is_some_and(|v| {
            v.len() == d
                && v.iter().enumerate().all(|(i, x)| {
                    let w = want.iter().find(|(j, _)| *j == i).map_or(0.0, |(_, w)| *w);
                    (x - w).abs() < 1e-4
                })
        })
    };
    ensure(close(axis_got, &[(2, 1.0)]), || {
        format!("the vector of `axis`: {axis_got:?}")
    })?;
    ensure(none_got.is_none(), || {
        format!("an id without a vector gave {none_got:?}")
    })?;
    ensure(close(long_got, &[(0, 0.6), (1, 0.8)]), || {
        format!("the vector of `long` (stored normalised): {long_got:?}")
    })?;
    let other = store.vectors("t", &strings(&["long"])).await?;
    ensure(other == vec![None], || {
        format!("a vector seen through another namespace: {other:?}")
    })?;
    let empty = store.vectors("s", &[]).await?;
    ensure(empty.is_empty(), || format!("no ids gave {empty:?}"))
}
