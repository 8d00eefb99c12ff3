use std::pin::Pin;

use agcore_llm::CycleEvent;
use agcore_types::{ChatResponse, MessageContent};
use futures::{Stream, StreamExt};

use super::AgentSession;
use crate::AgentError;
use crate::attach::Stage;

/// An event of a streamed turn.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AgentEvent {
    /// The turn passed its limits and `OnTurnStart`; the model is being called.
    TurnStarted {
        /// 0-based index of the turn.
        turn_index: u32,
    },
    /// The `<memory-context>` block the turn put in its system prompt
    /// (session memory, prefetched long-term memories, memory attachments),
    /// sent once right after `TurnStarted`; `text` is `""` when the block is
    /// empty.
    MemoryContext {
        /// The block, tags included, as the model sees it.
        text: String,
        /// Ids of the long-term memories prefetched into it, best match first.
        memory_ids: Vec<i64>,
    },
    /// A model or tool event of the turn's cycle (text deltas, tool calls,
    /// tool results, each complete model response).
    Cycle(CycleEvent),
    /// The turn finished and was committed to the history; always last.
    TurnCompleted {
        /// 0-based index of the turn.
        turn_index: u32,
        /// The model's final response.
        response: ChatResponse,
    },
}

/// The stream returned by [`AgentSession::submit_turn_stream`]; it borrows the session.
pub type AgentStream<'a> = Pin<Box<dyn Stream<Item = Result<AgentEvent, AgentError>> + Send + 'a>>;

impl AgentSession {
    /// The same turn as [`AgentSession::submit_turn`], as a stream of
    /// [`AgentEvent`]s: `TurnStarted`, `MemoryContext`, the cycle's events as they happen, and
    /// `TurnCompleted` once the history is updated.
    ///
    /// Dropping the stream early abandons the turn: the history is unchanged.
    ///
    /// # Errors
    /// Yields one `Err` (the errors of `submit_turn`) and ends.
    pub fn submit_turn_stream(&mut self, input: impl Into<MessageContent>) -> AgentStream<'_> {
        let input = input.into();
        Box::pin(async_stream::try_stream! {
            let turn_index = self.turn_index;
            let mut cycle = self.begin_turn(Stage::Gen, &input).await?;
            yield AgentEvent::TurnStarted { turn_index };
            yield AgentEvent::MemoryContext {
                text: self.memory_block.clone(),
                memory_ids: self.recalled_ids.clone(),
            };
            let content = self.user_content(input);
            let mut last = None;
            let mut failure = None;
            {
                let mut events = cycle.submit_stream(content);
                while let Some(event) = events.next().await {
                    match event {
                        Ok(event) => {
                            if let CycleEvent::ResponseComplete(response) = &event {
                                last = Some(response.clone());
                            }
                            yield AgentEvent::Cycle(event);
                        }
                        Err(err) => {
                            failure = Some(err);
                            break;
                        }
                    }
                }
            }
            self.cost += cycle.cost();
            if let Some(err) = failure {
                Err(self.turn_failed(err))?;
            }
            let response = last.ok_or_else(|| {
                AgentError::Other("the model stream ended without a response".into())
            })?;
            self.end_turn(Stage::Gen, cycle, &response).await?;
            yield AgentEvent::TurnCompleted { turn_index, response };
        })
    }
}
