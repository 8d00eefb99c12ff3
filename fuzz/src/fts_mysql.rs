//! The MySQL / MariaDB full-text query builder: whatever the query text, the
//! `MATCH … AGAINST (… IN BOOLEAN MODE)` text holds only plain index words
//! (`[a-z0-9]`, 3 to 84 characters, within InnoDB's default token sizes),
//! one per distinct query token, so no full-text operator, quote or
//! separator of the query reaches the server; and a document holding the
//! query text contains every word in its `terms` column.

use std::collections::HashSet;

use agcore_memory::retriever::unique_index_terms;
use agcore_memory_mysql::{fulltext_column, fulltext_query};

use crate::input::Input;

/// Scope prefixes as the backend writes them: none (the store) and `s<id>`.
const PREFIXES: [&str; 4] = ["", "s1", "s42", "s9223372036854775807"];

/// InnoDB's default `innodb_ft_min_token_size` and `innodb_ft_max_token_size`.
const WORD_LENGTHS: std::ops::RangeInclusive<usize> = 3..=84;

/// The token a word spells when it is the hex form (`x` + hex of the bytes).
fn decode_hex_word(word: &str) -> Option<Vec<u8>> {
    let hex = word.strip_prefix('x')?;
    if hex.len() % 2 != 0 {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// Builds the query for the input (the first byte picks the prefix) and
/// checks the words, the `AGAINST` text and the document column.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let prefix = PREFIXES[usize::from(input.byte()) % PREFIXES.len()];
    let query = input.text();
    let tokens = unique_index_terms(&query);
    let Some(built) = fulltext_query(prefix, &query) else {
        assert!(tokens.is_empty(), "tokens {tokens:?} but no query built");
        return;
    };
    assert!(!tokens.is_empty(), "a query built from no token");
    assert_eq!(
        built.words.len(),
        tokens.len().min(256),
        "one word per token"
    );
    let mut seen = HashSet::new();
    for (word, token) in built.words.iter().zip(&tokens) {
        assert!(WORD_LENGTHS.contains(&word.len()), "word length {word:?}");
        assert!(
            word.bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()),
            "operator or separator in word {word:?}"
        );
        let body = word.strip_prefix(prefix).unwrap_or_else(|| {
            panic!("word {word:?} lacks prefix {prefix:?}");
        });
        if let Some(bytes) = decode_hex_word(body) {
            assert_eq!(bytes, token.as_bytes(), "hex word is not its token");
        } else {
            assert!(body.starts_with('y') && body.len() == 41, "word {word:?}");
        }
        assert!(seen.insert(word.clone()), "two tokens share word {word:?}");
    }
    assert_eq!(built.against, built.words.join(" "));
    assert!(
        built
            .against
            .bytes()
            .all(|b| b == b' ' || b.is_ascii_lowercase() || b.is_ascii_digit()),
        "AGAINST text {:?} carries syntax",
        built.against
    );
    // A document holding the query's text holds every word (within the
    // token cap), padded by spaces as the term-frequency arithmetic needs.
    let column = fulltext_column(prefix, &query);
    for word in &built.words {
        assert!(
            column.contains(&format!(" {word} ")),
            "{word:?} not in the column"
        );
    }
}
