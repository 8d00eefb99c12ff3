//! Validation and normalisation of records and queries before they reach a store.

use agcore_llm::embedding::{EmbeddingSpace, l2_normalize};

use super::{VectorRecord, check_vector};
use crate::{MAX_ID_BYTES, MemoryError, validate_id};

/// Checks every record of a batch against `space` and returns them
/// normalised (unit length; an all-zero vector stays zero), in order, with
/// later duplicates of a `(namespace, id)` replacing earlier ones.
///
/// # Errors
/// [`MemoryError::InvalidInput`] for the first bad record (wrong length,
/// non-finite component, empty/oversized/NUL id, namespace over
/// [`MAX_ID_BYTES`] or with NUL); nothing is returned then.
pub fn prepare_records(
    space: &EmbeddingSpace,
    records: Vec<VectorRecord>,
) -> Result<Vec<VectorRecord>, MemoryError> {
    for record in &records {
        validate_namespace(&record.namespace)?;
        validate_id(&record.id)?;
        check_vector(space, &record.vector)?;
        check_norm(&record.vector)?;
    }
    let mut seen = foldhash::HashMap::<(String, String), usize>::default();
    let mut out: Vec<VectorRecord> = Vec::with_capacity(records.len());
    for mut record in records {
        l2_normalize(&mut record.vector);
        let key = (record.namespace.clone(), record.id.clone());
        match seen.get(&key) {
            Some(&at) => {
                if let Some(slot) = out.get_mut(at) {
                    *slot = record;
                }
            }
            None => {
                seen.insert(key, out.len());
                out.push(record);
            }
        }
    }
    Ok(out)
}

/// Checks a query against `space` and returns it normalised.
///
/// # Errors
/// [`MemoryError::InvalidInput`] for a wrong length or a non-finite component.
pub fn prepare_query(space: &EmbeddingSpace, query: &[f32]) -> Result<Vec<f32>, MemoryError> {
    check_vector(space, query)?;
    check_norm(query)?;
    let mut query = query.to_vec();
    l2_normalize(&mut query);
    Ok(query)
}

/// Checks a namespace: at most [`MAX_ID_BYTES`] bytes, no NUL (`""` is valid).
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the problem.
pub fn validate_namespace(namespace: &str) -> Result<(), MemoryError> {
    if namespace.len() > MAX_ID_BYTES {
        return Err(MemoryError::InvalidInput(format!(
            "namespace is {} bytes; the limit is {MAX_ID_BYTES}",
            namespace.len()
        )));
    }
    if namespace.contains('\0') {
        return Err(MemoryError::InvalidInput(
            "namespace must not contain NUL".into(),
        ));
    }
    Ok(())
}

fn check_norm(vector: &[f32]) -> Result<(), MemoryError> {
    if vector.iter().map(|x| x * x).sum::<f32>().is_finite() {
        Ok(())
    } else {
        Err(MemoryError::InvalidInput(
            "vector is too long: its squared norm overflows f32".into(),
        ))
    }
}
