#![cfg(test)]
//! `decode_sse` gives the same events however the bytes are split into
//! network chunks: random splits, every single boundary, one byte per chunk.

use crate::sse_support;

use agcore_llm::LlmError;
use proptest::prelude::*;
use sse_support::{decode, decode_parts, fixture};

/// Splits `bytes` at the given offsets (sorted, deduplicated, in range).
fn split_at(bytes: &[u8], cuts: &[usize]) -> Vec<Result<Vec<u8>, LlmError>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut parts = Vec::new();
    let mut start = 0;
    for cut in cuts {
        parts.push(Ok(bytes[start..cut].to_vec()));
        start = cut;
    }
    parts.push(Ok(bytes[start..].to_vec()));
    parts
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any split of the bytes (inside lines, `\r\n`, multi-byte characters)
    /// gives exactly the events of the unsplit stream.
    #[test]
    fn random_splits_give_identical_events(
        which in 0usize..4,
        cuts in proptest::collection::vec(any::<usize>(), 0..40),
    ) {
        let name = ["openai_text.sse", "openai_tool_calls.sse", "deepseek_reasoning.sse", "llama_tool_call.sse"][which];
        let bytes = fixture(name);
        let whole = decode(&bytes);
        prop_assert!(whole.iter().all(Result::is_ok));
        prop_assert_eq!(decode_parts(split_at(&bytes, &cuts)), whole);
    }
}

#[test]
fn every_single_byte_boundary_gives_identical_events() {
    for name in ["openai_text.sse", "deepseek_reasoning.sse"] {
        let bytes = fixture(name);
        let whole = decode(&bytes);
        for cut in 0..=bytes.len() {
            assert_eq!(
                decode_parts(split_at(&bytes, &[cut])),
                whole,
                "{name} split at {cut}"
            );
        }
        // One byte per network chunk.
        let bytewise: Vec<Result<Vec<u8>, LlmError>> = bytes.iter().map(|b| Ok(vec![*b])).collect();
        assert_eq!(decode_parts(bytewise), whole, "{name} byte by byte");
    }
}
