//! The SSE decoder: any chunking of the same body gives the same events.

use agcore_llm::{LlmError, StreamEvent, decode_sse};
use futures::StreamExt;

use crate::input::Input;
use crate::runtime::block_on;

/// What a decoded stream yields: the events, then the kind of the error (its
/// message may name a byte offset inside a chunk, so only the kind is compared).
#[derive(Debug, PartialEq)]
struct Outcome {
    events: Vec<StreamEvent>,
    error: Option<std::mem::Discriminant<LlmError>>,
}

fn decode(chunks: Vec<Vec<u8>>) -> Outcome {
    let parts: Vec<Result<Vec<u8>, LlmError>> = chunks.into_iter().map(Ok).collect();
    let items: Vec<Result<StreamEvent, LlmError>> =
        block_on(decode_sse(futures::stream::iter(parts)).collect());
    let mut outcome = Outcome {
        events: Vec::new(),
        error: None,
    };
    let count = items.len();
    for (i, item) in items.into_iter().enumerate() {
        assert!(outcome.error.is_none(), "an item follows the error");
        match item {
            Ok(event) => {
                let complete = matches!(event, StreamEvent::TurnComplete { .. });
                assert!(!complete || i + 1 == count, "events after TurnComplete");
                outcome.events.push(event);
            }
            Err(error) => outcome.error = Some(std::mem::discriminant(&error)),
        }
    }
    outcome
}

/// The first byte picks the chunk lengths (1 to 8 bytes, or byte by byte);
/// the rest is the body.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let seed = input.byte();
    let body = input.rest();
    let whole = decode(vec![body.to_vec()]);
    let step = usize::from(seed % 8) + 1;
    let mut chunks = Vec::new();
    let mut at = 0;
    let mut len = step;
    while at < body.len() {
        let end = (at + len).min(body.len());
        chunks.push(body[at..end].to_vec());
        at = end;
        // Vary the lengths so splits land on every kind of boundary.
        len = (len * 5 + usize::from(seed)) % 13 + 1;
    }
    let split = decode(chunks);
    assert_eq!(whole, split, "chunking changed the decoded stream");
    if body.len() <= 256 {
        let bytes = decode(body.iter().map(|b| vec![*b]).collect());
        assert_eq!(whole, bytes, "byte-by-byte decoding changed the stream");
    }
}
