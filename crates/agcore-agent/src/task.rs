use std::sync::Arc;

use agcore_llm::{HookContext, HookEvent};
use agcore_prompt::TemplateContext;
use agcore_prompt::builtin::{names, override_template};
use async_trait::async_trait;

use crate::attach::Stage;
use crate::{AgentError, AgentSession, JsonPlanParser, Plan, PlanParser};

/// An agent that turns a goal into a [`Plan`] and carries it out step by step.
#[async_trait]
pub trait TaskAgent: Send {
    /// Drafts a plan for `goal` and executes it; returns the plan with every
    /// step's final status.
    ///
    /// # Errors
    /// [`AgentError::PlanParse`] when no plan can be read from the model;
    /// the errors of [`TaskAgent::execute_plan`].
    async fn run(&mut self, goal: &str) -> Result<Plan, AgentError>;

    /// Executes the pending steps of `plan` in order and returns it.
    ///
    /// A failed step is recorded in its status; whether the remaining steps
    /// run depends on the agent's policy.
    ///
    /// # Errors
    /// Errors that stop the whole plan (a blocking `OnPlanStepComplete` hook,
    /// an illegal state transition).
    async fn execute_plan(&mut self, plan: Plan) -> Result<Plan, AgentError>;
}

/// What a [`PlanningAgent`] does after a step fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum FailurePolicy {
    /// Skip every remaining step (the default).
    #[default]
    Stop,
    /// Go on with the next step.
    Continue,
}

/// The built-in planning template (`task.planning`; variable `goal`).
pub use agcore_prompt::builtin::texts::TASK_PLANNING as DEFAULT_PLANNING_PROMPT;
/// The built-in review template (`task.review`; variable `goal`). The
/// steps' answers are already in the conversation.
pub use agcore_prompt::builtin::texts::TASK_REVIEW as DEFAULT_REVIEW_PROMPT;

/// A prompt of a [`PlanningAgent`]: a built-in one (overridable through
/// the bundle's prompts) or a template the caller gave.
#[derive(Debug, Clone)]
enum TaskPrompt {
    Builtin(&'static str),
    /// A caller's template overriding the built-in prompt named first.
    Custom(&'static str, String),
}

/// The reference [`TaskAgent`]: drafts the plan with the model through its
/// session (a [`Stage::Plan`] turn), parses it with a [`PlanParser`]
/// (default [`JsonPlanParser`]), runs each step as one
/// [`AgentSession::submit_turn`] ([`Stage::Gen`]), fires
/// `OnPlanStepComplete` with `plan_step_index` after each step, and, when a
/// review is enabled ([`PlanningAgent::with_review`]), ends with a review
/// turn ([`Stage::Critique`]) whose answer is [`Plan::review`]. Memory
/// attachments are retrieved at each turn's stage (see
/// `docs/memory-attachments.md`, *Stages*).
pub struct PlanningAgent {
    session: AgentSession,
    parser: Arc<dyn PlanParser>,
    policy: FailurePolicy,
    planning_prompt: TaskPrompt,
    review_prompt: Option<TaskPrompt>,
}

impl std::fmt::Debug for PlanningAgent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanningAgent")
            .field("session", &self.session)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl PlanningAgent {
    /// A planning agent over `session` with the JSON parser and [`FailurePolicy::Stop`].
    pub fn new(session: AgentSession) -> Self {
        Self {
            session,
            parser: Arc::new(JsonPlanParser),
            policy: FailurePolicy::Stop,
            planning_prompt: TaskPrompt::Builtin(names::TASK_PLANNING),
            review_prompt: None,
        }
    }

    /// Ends [`TaskAgent::run`] with a review turn asking `prompt`, a
    /// template whose `{{ goal }}` is the goal ([`DEFAULT_REVIEW_PROMPT`] is
    /// a good start); its answer becomes [`Plan::review`].
    pub fn with_review(mut self, prompt: impl Into<String>) -> Self {
        self.review_prompt = Some(TaskPrompt::Custom(names::TASK_REVIEW, prompt.into()));
        self
    }

    /// Ends [`TaskAgent::run`] with a review turn asking the `task.review`
    /// prompt (the bundle's override, else [`DEFAULT_REVIEW_PROMPT`]).
    pub fn with_default_review(mut self) -> Self {
        self.review_prompt = Some(TaskPrompt::Builtin(names::TASK_REVIEW));
        self
    }

    /// Uses another plan parser.
    pub fn with_parser(mut self, parser: Arc<dyn PlanParser>) -> Self {
        self.parser = parser;
        self
    }

    /// Sets the failure policy.
    pub fn with_policy(mut self, policy: FailurePolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Sets the planning instruction, a template whose `{{ goal }}` is the
    /// goal (default: the `task.planning` prompt, the bundle's override or
    /// [`DEFAULT_PLANNING_PROMPT`]).
    pub fn with_planning_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.planning_prompt = TaskPrompt::Custom(names::TASK_PLANNING, prompt.into());
        self
    }

    /// `prompt` rendered with `goal`, which is untrusted (quoted and
    /// escaped, in a caller's template too).
    fn render(&self, prompt: &TaskPrompt, goal: &str) -> Result<String, AgentError> {
        let ctx = TemplateContext::new().with("goal", goal);
        Ok(match prompt {
            TaskPrompt::Builtin(name) => self
                .session
                .bundle()
                .prompts
                .render_or_builtin(name, &ctx)?,
            TaskPrompt::Custom(name, source) => override_template(name, source)?.render(&ctx)?,
        })
    }

    /// The underlying session (history, cost, session memory).
    pub fn session(&self) -> &AgentSession {
        &self.session
    }

    /// Consumes the agent, returning its session.
    pub fn into_session(self) -> AgentSession {
        self.session
    }

    /// Asks the model for a plan for `goal` and parses it.
    ///
    /// # Errors
    /// [`AgentError::Prompt`] when the planning template fails to render;
    /// the errors of `submit_turn`; [`AgentError::PlanParse`].
    pub async fn draft_plan(&mut self, goal: &str) -> Result<Plan, AgentError> {
        let prompt = self.render(&self.planning_prompt, goal)?;
        let response = self.session.submit_turn_at(Stage::Plan, prompt).await?;
        self.parser.parse(&response.text(), goal).await
    }

    /// Asks the model to review the work done towards `plan`'s goal (a
    /// [`Stage::Critique`] turn) with the template `prompt` (`{{ goal }}` is
    /// the goal) and returns its answer.
    ///
    /// # Errors
    /// [`AgentError::Prompt`] when the template fails to render; the errors
    /// of `submit_turn`.
    pub async fn review(&mut self, plan: &Plan, prompt: &str) -> Result<String, AgentError> {
        let prompt = self.render(
            &TaskPrompt::Custom(names::TASK_REVIEW, prompt.to_owned()),
            &plan.goal,
        )?;
        let response = self.session.submit_turn_at(Stage::Critique, prompt).await?;
        Ok(response.text())
    }

    async fn step_complete(&self, index: usize) -> Result<(), AgentError> {
        let ctx = HookContext::new(HookEvent::OnPlanStepComplete).with_plan_step_index(index);
        self.session
            .bundle()
            .hook_executor
            .execute(HookEvent::OnPlanStepComplete, &ctx)
            .await
            .into_result()
            .map_err(AgentError::from_llm)
    }
}

#[async_trait]
impl TaskAgent for PlanningAgent {
    async fn run(&mut self, goal: &str) -> Result<Plan, AgentError> {
        let plan = self.draft_plan(goal).await?;
        let mut plan = self.execute_plan(plan).await?;
        if let Some(prompt) = self.review_prompt.clone() {
            let text = self.render(&prompt, &plan.goal)?;
            let response = self.session.submit_turn_at(Stage::Critique, text).await?;
            plan.review = Some(response.text());
        }
        Ok(plan)
    }

    async fn execute_plan(&mut self, mut plan: Plan) -> Result<Plan, AgentError> {
        let total = plan.steps.len();
        let mut stop = false;
        for step in plan.steps.iter_mut().filter(|s| s.status.is_pending()) {
            if stop {
                step.skip()?;
                continue;
            }
            step.start()?;
            let input = format!("Step {} of {total}: {}", step.index + 1, step.description);
            match self.session.submit_turn(input).await {
                Ok(response) => step.complete(response)?,
                Err(err) => {
                    tracing::warn!(step = step.index, error = %err, "plan step failed");
                    step.fail(err)?;
                    stop = self.policy == FailurePolicy::Stop;
                }
            }
            self.step_complete(step.index).await?;
        }
        Ok(plan)
    }
}
