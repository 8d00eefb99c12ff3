//! A corpus with a realistic vocabulary for the dedupe benchmark: 30,000
//! pseudo-words (three consonant–vowel syllables, so stemming folds few of
//! them) drawn Zipf-distributed (s = 1), 8–20 words per memory, and one
//! memory in fifty a near copy of an earlier one (a word dropped, the case
//! changed, punctuation added).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

const CONSONANTS: &[u8] = b"bcdfghjklmnprstvz";
const VOWELS: &[u8] = b"aeiou";
const WORDS: usize = 30_000;

/// The generator.
pub struct Realistic {
    words: Vec<String>,
    cumulative: Vec<f64>,
}

impl Realistic {
    pub fn new() -> Self {
        let syllables: Vec<String> = CONSONANTS
            .iter()
            .flat_map(|c| {
                VOWELS
                    .iter()
                    .map(move |v| format!("{}{}", *c as char, *v as char))
            })
            .collect();
        let mut words = Vec::with_capacity(WORDS);
        'outer: for a in &syllables {
            for b in &syllables {
                for c in &syllables {
                    if words.len() == WORDS {
                        break 'outer;
                    }
                    words.push(format!("{a}{b}{c}"));
                }
            }
        }
        // Spread the Zipf ranks over the syllable space.
        let mut rng = StdRng::seed_from_u64(42);
        for i in (1..words.len()).rev() {
            words.swap(i, rng.random_range(0..=i));
        }
        let mut total = 0.0;
        let cumulative = (1..=words.len())
            .map(|rank| {
                total += 1.0 / rank as f64;
                total
            })
            .collect();
        Self { words, cumulative }
    }

    fn word(&self, rng: &mut StdRng) -> &str {
        let last = self.cumulative.last().copied().unwrap_or(1.0);
        let x = rng.random_range(0.0..last);
        let i = self.cumulative.partition_point(|c| *c < x);
        &self.words[i.min(self.words.len() - 1)]
    }

    /// `n` memory texts from `seed`.
    pub fn memories(&self, n: usize, seed: u64) -> Vec<String> {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut out: Vec<String> = Vec::with_capacity(n);
        for i in 0..n {
            if i > 0 && rng.random_range(0..50) == 0 {
                let source = &out[rng.random_range(0..i)];
                let mut words: Vec<String> = source.split(' ').map(str::to_owned).collect();
                if words.len() > 12 {
                    words.remove(rng.random_range(0..words.len()));
                }
                let first = words[0].to_uppercase();
                words[0] = first;
                out.push(format!("{}.", words.join(" ")));
                continue;
            }
            let len = rng.random_range(8..=20);
            let words: Vec<&str> = (0..len).map(|_| self.word(&mut rng)).collect();
            out.push(words.join(" "));
        }
        out
    }
}
