//! Hooks: code run at fixed points of an LLM call or an agent turn that may
//! let it continue or block it.
//!
//! A [`HookExecutor`] holds hooks per [`HookEvent`] and runs the hooks of one
//! event in registration order, stopping at the first [`HookResult::Block`].
//! It is built once and shared as `Arc<HookExecutor>`.

use std::collections::HashMap;
use std::fmt;

use agcore_types::{ChatRequest, ChatResponse};
use async_trait::async_trait;

use crate::LlmError;

/// The points at which hooks run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HookEvent {
    /// Before a request is sent to the provider (`request` set). A block stops it.
    BeforeRequest,
    /// After a response arrived (`request` and `response` set).
    AfterResponse,
    /// Before a failed request is retried (`error` and `attempt` set; `attempt`
    /// is the number of the attempt about to start, from 2).
    OnRetry,
    /// When a request failed for good (`error` set).
    OnError,
    /// When an agent turn starts (`turn_index` set). Fired by the agent layer
    /// around its turns, not by [`LlmCycle`](crate::LlmCycle).
    OnTurnStart,
    /// When an agent turn ends (`turn_index` set). Fired by the agent layer.
    OnTurnEnd,
    /// When a plan step completes (`plan_step_index` set). Fired by the planner.
    OnPlanStepComplete,
}

impl HookEvent {
    /// Every event, in declaration order.
    pub const ALL: [HookEvent; 7] = [
        HookEvent::BeforeRequest,
        HookEvent::AfterResponse,
        HookEvent::OnRetry,
        HookEvent::OnError,
        HookEvent::OnTurnStart,
        HookEvent::OnTurnEnd,
        HookEvent::OnPlanStepComplete,
    ];
}

/// What a hook sees: the event and whatever the event carries (borrowed).
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct HookContext<'a> {
    /// The event being fired.
    pub event: HookEvent,
    /// The request about to be sent or just answered.
    pub request: Option<&'a ChatRequest>,
    /// The response received ([`HookEvent::AfterResponse`]).
    pub response: Option<&'a ChatResponse>,
    /// The error ([`HookEvent::OnRetry`], [`HookEvent::OnError`]).
    pub error: Option<&'a LlmError>,
    /// Attempt number, from 1 (0 when not applicable).
    pub attempt: u32,
    /// Agent turn number, from 0 ([`HookEvent::OnTurnStart`]/[`HookEvent::OnTurnEnd`]).
    pub turn_index: Option<u32>,
    /// Plan step number, from 0 ([`HookEvent::OnPlanStepComplete`]).
    pub plan_step_index: Option<usize>,
}

impl<'a> HookContext<'a> {
    /// A context for `event` carrying nothing yet.
    pub fn new(event: HookEvent) -> Self {
        Self {
            event,
            request: None,
            response: None,
            error: None,
            attempt: 0,
            turn_index: None,
            plan_step_index: None,
        }
    }

    /// Sets the request.
    pub fn with_request(mut self, request: &'a ChatRequest) -> Self {
        self.request = Some(request);
        self
    }

    /// Sets the response.
    pub fn with_response(mut self, response: &'a ChatResponse) -> Self {
        self.response = Some(response);
        self
    }

    /// Sets the error.
    pub fn with_error(mut self, error: &'a LlmError) -> Self {
        self.error = Some(error);
        self
    }

    /// Sets the attempt number (from 1).
    pub fn with_attempt(mut self, attempt: u32) -> Self {
        self.attempt = attempt;
        self
    }

    /// Sets the turn number (from 0).
    pub fn with_turn_index(mut self, turn_index: u32) -> Self {
        self.turn_index = Some(turn_index);
        self
    }

    /// Sets the plan step number (from 0).
    pub fn with_plan_step_index(mut self, plan_step_index: usize) -> Self {
        self.plan_step_index = Some(plan_step_index);
        self
    }
}

/// A hook's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookResult {
    /// Go on (and run the next hook).
    Continue,
    /// Stop: the operation is refused with this reason.
    Block {
        /// Why, for the caller and the logs.
        reason: String,
    },
}

impl HookResult {
    /// [`HookResult::Continue`].
    pub fn allow() -> Self {
        Self::Continue
    }

    /// [`HookResult::Block`] with `reason`.
    pub fn block(reason: impl Into<String>) -> Self {
        Self::Block {
            reason: reason.into(),
        }
    }

    /// Whether this is a block.
    pub fn is_blocked(&self) -> bool {
        matches!(self, Self::Block { .. })
    }

    /// `Ok(())` to continue, [`LlmError::HookBlocked`] for a block.
    ///
    /// # Errors
    /// [`LlmError::HookBlocked`] carrying the reason when blocked.
    pub fn into_result(self) -> Result<(), LlmError> {
        match self {
            Self::Continue => Ok(()),
            Self::Block { reason } => Err(LlmError::HookBlocked { reason }),
        }
    }
}

/// Code run at a [`HookEvent`]. `Send + Sync`; hooks may await (log to a
/// store, ask a policy service) but should be quick: they run inline.
#[async_trait]
pub trait Hook: Send + Sync {
    /// Inspects the context and decides whether to continue.
    async fn execute(&self, ctx: &HookContext<'_>) -> HookResult;
}

/// Runs registered hooks per event, in registration order.
#[derive(Default)]
pub struct HookExecutor {
    hooks: HashMap<HookEvent, Vec<Box<dyn Hook>>>,
}

impl fmt::Debug for HookExecutor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let counts: Vec<(HookEvent, usize)> = HookEvent::ALL
            .iter()
            .map(|e| (*e, self.len(*e)))
            .filter(|(_, n)| *n > 0)
            .collect();
        f.debug_struct("HookExecutor")
            .field("hooks", &counts)
            .finish()
    }
}

impl HookExecutor {
    /// An executor without hooks.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `hook` to run at `event`, after the hooks already registered there.
    pub fn register(&mut self, event: HookEvent, hook: Box<dyn Hook>) {
        self.hooks.entry(event).or_default().push(hook);
    }

    /// Builder form of [`Self::register`].
    pub fn with_hook(mut self, event: HookEvent, hook: Box<dyn Hook>) -> Self {
        self.register(event, hook);
        self
    }

    /// Number of hooks registered at `event`.
    pub fn len(&self, event: HookEvent) -> usize {
        self.hooks.get(&event).map_or(0, Vec::len)
    }

    /// Whether no hook is registered at all.
    pub fn is_empty(&self) -> bool {
        self.hooks.values().all(Vec::is_empty)
    }

    /// Runs the hooks of `event` in registration order with `ctx`; returns the
    /// first [`HookResult::Block`] (later hooks do not run) or
    /// [`HookResult::Continue`] when all continued.
    pub async fn execute(&self, event: HookEvent, ctx: &HookContext<'_>) -> HookResult {
        let Some(hooks) = self.hooks.get(&event) else {
            return HookResult::Continue;
        };
        for hook in hooks {
            let result = hook.execute(ctx).await;
            if let HookResult::Block { reason } = &result {
                tracing::debug!(?event, reason = %reason, "hook blocked");
                return result;
            }
        }
        HookResult::Continue
    }
}

/// A [`Hook`] made from an async-free closure, for small policies and tests.
pub struct FnHook<F>(pub F);

impl<F> fmt::Debug for FnHook<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FnHook")
    }
}

#[async_trait]
impl<F> Hook for FnHook<F>
where
    F: Fn(&HookContext<'_>) -> HookResult + Send + Sync,
{
    async fn execute(&self, ctx: &HookContext<'_>) -> HookResult {
        (self.0)(ctx)
    }
}
