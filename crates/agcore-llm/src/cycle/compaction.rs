//! Compaction of an [`LlmCycle`]'s conversation before a request:
//! microcompaction, then a summary when the prompt is still over the
//! threshold of its [`CompactConfig`].

use std::sync::Arc;

use agcore_types::ChatMessage;

use super::LlmCycle;
use super::request::cancellable;
use crate::LlmError;
use crate::compact::{self, CompactConfig};

impl LlmCycle {
    /// When a compact config is set and the prompt is over its threshold:
    /// microcompact, then summarise when still over.
    pub(super) async fn maybe_compact(&mut self) -> Result<(), LlmError> {
        let Some(config) = &self.compact else {
            return Ok(());
        };
        let mut config = config.clone();
        if config.model.is_none() {
            config.model = Some(self.config.model.clone());
        }
        if !self.over_threshold(&config) {
            return Ok(());
        }
        let shrunk = compact::microcompact(&mut self.messages, &config);
        tracing::debug!(shrunk, "microcompact");
        if !self.over_threshold(&config) {
            return Ok(());
        }
        let provider = Arc::clone(&self.provider);
        let outcome = cancellable(
            &self.cancel,
            compact::summarize(
                provider.as_ref(),
                &self.config.model,
                &mut self.messages,
                &config,
            ),
        )
        .await??;
        tracing::debug!(summarized = outcome.summarized, "summary compaction");
        if let Some(usage) = &outcome.usage {
            let model = outcome.model.as_deref().filter(|m| !m.is_empty());
            self.cost
                .record(model.unwrap_or(self.config.model.as_str()), usage);
        }
        Ok(())
    }

    fn over_threshold(&self, config: &CompactConfig) -> bool {
        let counter = config.token_counter();
        let system = self.system_prompt.as_ref().map_or(0, |p| {
            counter.count_message(&ChatMessage::system(p.clone()))
        });
        counter.count_messages(&self.messages) + system > config.threshold()
    }
}
