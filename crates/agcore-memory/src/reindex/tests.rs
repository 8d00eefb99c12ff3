use super::*;

/// A component held in memory: rows `(key, group, text, len)`.
#[derive(Default)]
struct Fake {
    rows: Vec<(i64, i64, String, i64)>,
    terms: BTreeMap<i64, Vec<String>>,
    totals: BTreeMap<i64, i64>,
    analyzer: Option<String>,
    reads: Vec<i64>,
    finished: bool,
}

impl Reindex for Fake {
    type Error = std::convert::Infallible;

    fn names(&self) -> (&'static str, &'static str) {
        ("fake", "store")
    }

    fn batch(&self) -> i64 {
        2
    }

    async fn recorded(&mut self) -> Result<Option<String>, Self::Error> {
        Ok(self.analyzer.clone())
    }

    async fn read(&mut self, after: i64, limit: i64) -> Result<Vec<ReindexRow>, Self::Error> {
        self.reads.push(after);
        let limit = usize::try_from(limit).unwrap_or(0);
        Ok((self.rows.iter())
            .filter(|r| r.0 > after)
            .take(limit)
            .map(|(key, group, text, len)| ReindexRow {
                key: *key,
                group: *group,
                text: text.clone(),
                len: *len,
            })
            .collect())
    }

    async fn write(
        &mut self,
        rows: Vec<Reindexed>,
        deltas: BTreeMap<i64, i64>,
    ) -> Result<(), Self::Error> {
        for row in rows {
            if let Some(stored) = self.rows.iter_mut().find(|r| r.0 == row.key) {
                stored.3 = row.len;
            }
            self.terms.insert(row.key, row.tokens);
        }
        for (group, delta) in deltas {
            *self.totals.entry(group).or_insert(0) += delta;
        }
        Ok(())
    }

    async fn finish(&mut self) -> Result<(), Self::Error> {
        self.finished = true;
        Ok(())
    }

    async fn record(&mut self, analyzer: &str) -> Result<(), Self::Error> {
        self.analyzer = Some(analyzer.to_owned());
        Ok(())
    }
}

fn fake() -> Fake {
    let rows = [
        (1, 7, "red apples", 1),
        (4, 7, "green", 1),
        (9, 8, "blue sky", 0),
    ];
    Fake {
        rows: rows
            .into_iter()
            .map(|(k, g, t, l)| (k, g, t.to_owned(), l))
            .collect(),
        totals: BTreeMap::from([(7, 2), (8, 0)]),
        ..Fake::default()
    }
}

#[tokio::test]
async fn every_row_is_retokenised_in_keyset_batches_and_recorded() {
    let mut component = fake();
    assert_eq!(run(&mut component).await, Ok(true));
    assert_eq!(component.reads, [i64::MIN, 4, 9]);
    assert_eq!(component.terms.get(&1), Some(&index_terms("red apples")));
    assert_eq!(component.terms.len(), 3);
    let lens: Vec<i64> = component.rows.iter().map(|r| r.3).collect();
    let expected: Vec<i64> = (component.rows.iter())
        .map(|r| i64::try_from(index_terms(&r.2).len()).unwrap_or(0))
        .collect();
    assert_eq!(lens, expected);
    // Each group's total is the sum of its rows' new lengths.
    assert_eq!(component.totals.get(&7), Some(&(expected[0] + expected[1])));
    assert_eq!(component.totals.get(&8), Some(&expected[2]));
    assert!(component.finished);
    assert_eq!(component.analyzer.as_deref(), Some(ANALYZER_ID));
}

#[tokio::test]
async fn a_current_component_is_left_alone_and_a_rerun_changes_nothing() {
    let mut component = fake();
    component.analyzer = Some(ANALYZER_ID.to_owned());
    assert_eq!(run(&mut component).await, Ok(false));
    assert!(component.reads.is_empty() && !component.finished);

    let mut once = fake();
    assert_eq!(run(&mut once).await, Ok(true));
    // A run cut short is done again: recomputing from the current lengths
    // gives the same index and totals.
    once.analyzer = None;
    let (terms, totals) = (once.terms.clone(), once.totals.clone());
    assert_eq!(run(&mut once).await, Ok(true));
    assert_eq!((once.terms, once.totals), (terms, totals));
}
