//! A seeded random run of writes against the reference: saves, batches,
//! replacements with new text, moves between sequences, new times, turns
//! without a sequence and deletions, in an order no fixed scenario covers.

use std::future::Future;
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use super::Pair;
use crate::{CheckResult, at, turn};
use agcore_memory::retriever::ContextField;
use agcore_memory::{EvictionConfig, MemoryItem, MemoryStore};

/// Words the turns are made of (English and Chinese), and the queries.
const WORDS: [&str; 12] = [
    "violin", "attic", "puppy", "marathon", "lake", "guitar", "cake", "running", "garden", "长城",
    "夏天", "绿茶",
];

/// Writes in the run.
const STEPS: usize = 120;

/// Distinct ids the run writes (so replacements and deletions are common).
const IDS: usize = 24;

/// A random turn: 1–4 words, in one of three sessions or none.
fn random_item(rng: &mut StdRng, id: usize) -> MemoryItem {
    let words: Vec<&str> = (0..rng.random_range(1..=4))
        .filter_map(|_| WORDS.get(rng.random_range(0..WORDS.len())).copied())
        .collect();
    let text = words.join(" ");
    let seq = rng.random_range(0..40);
    let id = format!("r{id}");
    match rng.random_range(0..4) {
        0 => MemoryItem::new(id, text).with_created_at(at(seq)),
        session => turn(&id, &format!("s{session}"), seq, &text),
    }
}

/// After 120 random writes (seed fixed) with window 1 and then with
/// window 2, every word ranks as in the reference.
///
/// # Errors
/// [`CheckFailure`](crate::CheckFailure) naming the first difference.
pub async fn check_random_writes<F, Fut>(make: &F) -> CheckResult
where
    F: Fn(Option<ContextField>, EvictionConfig) -> Fut,
    Fut: Future<Output = Arc<dyn MemoryStore>>,
{
    for (seed, window) in [(7_u64, 1_usize), (11, 2)] {
        let field = ContextField::default().with_window(window);
        let pair = Pair::new(make, Some(field), EvictionConfig::none()).await;
        let mut rng = StdRng::seed_from_u64(seed);
        for _ in 0..STEPS {
            let id = rng.random_range(0..IDS);
            match rng.random_range(0..10) {
                0 | 1 => pair.delete(&format!("r{id}")).await?,
                2 => {
                    let batch = (0..rng.random_range(2..6))
                        .map(|k| random_item(&mut rng, (id + k) % IDS))
                        .collect::<Vec<_>>();
                    // One write per id, as a batch with an id twice is
                    // resolved by each store's own rule.
                    let mut seen = std::collections::HashSet::new();
                    let batch = batch.into_iter().filter(|i| seen.insert(i.id.clone()));
                    pair.save_many(batch.collect()).await?;
                }
                _ => pair.save(random_item(&mut rng, id)).await?,
            }
        }
        pair.ranks_alike(&WORDS).await?;
        pair.ranks_alike(&["violin attic", "puppy lake cake", "长城 绿茶"])
            .await?;
    }
    Ok(())
}
