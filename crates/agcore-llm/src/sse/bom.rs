//! The leading byte-order mark of an event stream, handled before
//! `eventsource-stream` sees the bytes: its own check slices the first
//! decoded string at byte 1, which panics on the three-byte UTF-8 BOM.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures::Stream;

use crate::LlmError;

/// The UTF-8 encoding of U+FEFF.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without a leading UTF-8 byte-order mark (also when it is split
/// across chunks), led by one `\n`. The blank line dispatches nothing, and the
/// parser never sees a BOM first: a second one stays part of the first line
/// (whose field name it then is, so that line is ignored, as the
/// specification says).
pub(super) struct StripBom<S> {
    bytes: Pin<Box<S>>,
    /// The first bytes, until they are known not to be a BOM prefix.
    head: Option<Vec<u8>>,
    /// Items ready to be returned.
    ready: VecDeque<Result<Vec<u8>, LlmError>>,
    ended: bool,
}

impl<S> StripBom<S> {
    pub(super) fn new(bytes: S) -> Self {
        Self {
            bytes: Box::pin(bytes),
            head: Some(Vec::new()),
            ready: VecDeque::new(),
            ended: false,
        }
    }
}

impl<S, B, E> Stream for StripBom<S>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: Into<LlmError>,
{
    type Item = Result<Vec<u8>, LlmError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            if let Some(item) = this.ready.pop_front() {
                return Poll::Ready(Some(item));
            }
            if this.ended {
                return Poll::Ready(None);
            }
            let item = match this.bytes.as_mut().poll_next(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(item) => item,
            };
            match (item, this.head.take()) {
                (Some(Ok(chunk)), Some(mut start)) => {
                    start.extend_from_slice(chunk.as_ref());
                    if start.len() < BOM.len() && BOM.starts_with(&start) {
                        this.head = Some(start);
                    } else {
                        this.ready.push_back(Ok(lead(&start)));
                    }
                }
                (Some(Ok(chunk)), None) => this.ready.push_back(Ok(chunk.as_ref().to_vec())),
                (Some(Err(error)), start) => {
                    if let Some(start) = start {
                        this.ready.push_back(Ok(lead(&start)));
                    }
                    this.ready.push_back(Err(error.into()));
                }
                (None, start) => {
                    this.ended = true;
                    if let Some(start) = start {
                        this.ready.push_back(Ok(lead(&start)));
                    }
                }
            }
        }
    }
}

/// `\n` and `start` without a leading BOM.
fn lead(start: &[u8]) -> Vec<u8> {
    let mut out = b"\n".to_vec();
    out.extend_from_slice(start.strip_prefix(BOM).unwrap_or(start));
    out
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;

    use super::*;

    fn run(chunks: &[&[u8]]) -> Vec<u8> {
        let parts: Vec<Result<Vec<u8>, LlmError>> = chunks.iter().map(|c| Ok(c.to_vec())).collect();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let out: Vec<_> =
            runtime.block_on(StripBom::new(futures::stream::iter(parts)).collect::<Vec<_>>());
        out.into_iter()
            .flat_map(|r| r.unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_split_bom_is_removed_once() {
        assert_eq!(run(&[b"\xEF", b"\xBB\xBFdata"]), b"\ndata");
        assert_eq!(run(&[b"\xEF\xBB\xBF\xEF\xBB\xBFx"]), b"\n\xEF\xBB\xBFx");
        assert_eq!(run(&[b"\xEF\xBB"]), b"\n\xEF\xBB");
        assert_eq!(run(&[b"data"]), b"\ndata");
        assert_eq!(run(&[]), b"\n");
    }
}
