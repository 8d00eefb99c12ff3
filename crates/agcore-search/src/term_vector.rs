//! Sparse term-frequency vectors used while building a
//! [`ContextualIndex`](crate::ContextualIndex).

/// (term id, frequency) pairs sorted by term id, each term once.
pub(crate) type TermVector = Vec<(u32, f64)>;

/// Sorts `entries` by term and sums the frequencies of repeated terms.
pub(crate) fn coalesce(mut entries: Vec<(u32, f64)>) -> TermVector {
    entries.sort_unstable_by_key(|(t, _)| *t);
    let mut out: TermVector = Vec::with_capacity(entries.len());
    for (t, f) in entries {
        match out.last_mut() {
            Some(last) if last.0 == t => last.1 += f,
            _ => out.push((t, f)),
        }
    }
    out
}

/// Per document, the summed term frequencies of its neighbours within
/// `window` positions that share its group, and that field's length.
pub(crate) fn context_fields(
    own: &[TermVector],
    own_len: &[f64],
    groups: &[Option<String>],
    window: usize,
) -> (Vec<TermVector>, Vec<f64>) {
    let n = own.len();
    let mut fields = Vec::with_capacity(n);
    let mut lens = Vec::with_capacity(n);
    for i in 0..n {
        let mut entries: Vec<(u32, f64)> = Vec::new();
        let mut len = 0.0;
        if window > 0 {
            let lo = i.saturating_sub(window);
            let hi = i.saturating_add(window).min(n.saturating_sub(1));
            for j in (lo..=hi).filter(|&j| j != i && groups.get(j) == groups.get(i)) {
                if let Some(terms) = own.get(j) {
                    entries.extend_from_slice(terms);
                }
                len += own_len.get(j).copied().unwrap_or(0.0);
            }
        }
        fields.push(coalesce(entries));
        lens.push(len);
    }
    (fields, lens)
}

/// The mean of `values` (0 when empty).
pub(crate) fn average(values: &[f64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        values.iter().sum::<f64>() / count(values.len())
    }
}

/// usize → f64; exact below 2^53.
#[allow(clippy::cast_precision_loss)]
pub(crate) fn count(n: usize) -> f64 {
    n as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coalesce_sums_repeated_terms() {
        assert_eq!(
            coalesce(vec![(3, 1.0), (1, 1.0), (3, 2.0)]),
            vec![(1, 1.0), (3, 3.0)]
        );
    }

    #[test]
    fn context_stays_in_the_group() {
        let own = vec![vec![(0, 1.0)], vec![(1, 1.0)], vec![(2, 1.0)]];
        let groups = vec![Some("a".into()), Some("a".into()), Some("b".into())];
        let (ctx, lens) = context_fields(&own, &[1.0, 1.0, 1.0], &groups, 1);
        assert_eq!(ctx[0], vec![(1, 1.0)]);
        assert_eq!(ctx[1], vec![(0, 1.0)]);
        assert!(ctx[2].is_empty());
        assert_eq!(lens, vec![1.0, 1.0, 0.0]);
    }
}
