//! Compaction of an [`LlmCycle`]'s conversation before a request:
//! microcompaction over the threshold of its [`CompactConfig`], then a
//! summary when the prompt is still over the summary trigger (and the
//! summary step is on), by the summary provider when one is set.

use std::sync::Arc;

use agcore_types::ChatMessage;

use super::LlmCycle;
use super::request::cancellable;
use crate::LlmError;
use crate::compact::{self, CompactConfig};

impl LlmCycle {
    /// When a compact config is set and the prompt is over its threshold:
    /// microcompact, then summarise when still over the summary trigger.
    pub(super) async fn maybe_compact(&mut self) -> Result<(), LlmError> {
        let Some(config) = &self.compact else {
            return Ok(());
        };
        let mut config = config.clone();
        if config.model.is_none() {
            config.model = Some(self.config.model.clone());
        }
        if !self.over(&config, config.threshold()) {
            return Ok(());
        }
        let shrunk = compact::microcompact(&mut self.messages, &config);
        tracing::debug!(shrunk, "microcompact");
        if !config.summarize || !self.over(&config, config.summary_trigger()) {
            return Ok(());
        }
        let (provider, model) = match &self.summary_model {
            Some((provider, model)) => (Arc::clone(provider), model.clone()),
            None => (Arc::clone(&self.provider), self.config.model.clone()),
        };
        let outcome = cancellable(
            &self.cancel,
            compact::summarize(provider.as_ref(), &model, &mut self.messages, &config),
        )
        .await??;
        tracing::debug!(summarized = outcome.summarized, "summary compaction");
        if let Some(usage) = &outcome.usage {
            let answered = outcome.model.as_deref().filter(|m| !m.is_empty());
            self.cost.record(answered.unwrap_or(model.as_str()), usage);
        }
        Ok(())
    }

    fn over(&self, config: &CompactConfig, tokens: usize) -> bool {
        let counter = config.token_counter();
        let system = self.system_prompt.as_ref().map_or(0, |p| {
            counter.count_message(&ChatMessage::system(p.clone()))
        });
        counter.count_messages(&self.messages) + system > tokens
    }
}
