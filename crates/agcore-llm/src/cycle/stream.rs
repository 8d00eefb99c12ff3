use std::pin::Pin;
use std::sync::Arc;

use agcore_types::{ChatMessage, MessageContent};
use futures::{Stream, StreamExt};

use super::request::cancellable;
use super::tools::run_tool_calls;
use super::{CycleEvent, LlmCycle};
use crate::{LlmError, StreamFolder};

/// The stream returned by [`LlmCycle::submit_stream`]; it borrows the cycle.
pub type CycleStream<'a> = Pin<Box<dyn Stream<Item = Result<CycleEvent, LlmError>> + Send + 'a>>;

impl LlmCycle {
    /// Like [`LlmCycle::submit`], but streams the model's answers: yields the
    /// [`CycleEvent`]s described there as they happen.
    ///
    /// Only opening a stream is retried; a stream that breaks after it started
    /// ends with its error. The conversation is updated as in `submit`, and
    /// folding the events of each response gives the response `submit` would
    /// return for the same content.
    ///
    /// # Errors
    /// Yields one `Err` (the errors of [`LlmCycle::submit`], or a broken or
    /// truncated stream) and ends.
    pub fn submit_stream(&mut self, user_input: impl Into<MessageContent>) -> CycleStream<'_> {
        let input = user_input.into();
        Box::pin(async_stream::try_stream! {
            if self.cancel.is_cancelled() {
                Err(LlmError::Cancelled)?;
            }
            let tools = self.tools.clone();
            self.messages.push(ChatMessage::user(input));
            let mut tool_turns = 0u32;
            loop {
                self.maybe_compact().await?;
                let request = self.build_request(tools.as_deref(), true, tool_turns > 0);
                let provider = Arc::clone(&self.provider);
                let mut events = self
                    .caller()
                    .send(&request, |r| {
                        let provider = Arc::clone(&provider);
                        async move { provider.chat_stream(r).await }
                    })
                    .await?;
                let mut folder = StreamFolder::new();
                while let Some(event) = cancellable(&self.cancel, events.next()).await? {
                    let event = event?;
                    folder.push(&event);
                    yield CycleEvent::Model(event);
                }
                let response = folder.finish()?;
                self.caller().after_response(&request, &response).await?;
                self.record(&response);
                let calls = self.accept(&response, tools.as_deref(), &mut tool_turns)?;
                yield CycleEvent::ResponseComplete(response);
                let (Some(calls), Some(executor)) = (calls, tools.as_deref()) else {
                    break;
                };
                let round = cancellable(&self.cancel, run_tool_calls(executor, &calls)).await?;
                for (_, message, _) in &round.results {
                    self.messages.push(message.clone());
                }
                for (call, message, is_error) in round.results {
                    yield CycleEvent::ToolResult { call, message, is_error };
                }
                if let Some(fatal) = round.fatal {
                    Err(fatal)?;
                }
            }
        })
    }
}
