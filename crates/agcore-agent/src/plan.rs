use agcore_types::ChatResponse;

use crate::AgentError;

/// A task plan: an ordered list of [`Step`]s towards a goal.
#[derive(Debug)]
pub struct Plan {
    /// Unique id (a UUID v4 unless given).
    pub id: String,
    /// The goal, in the user's words.
    pub goal: String,
    /// The steps, `steps[i].index == i`.
    pub steps: Vec<Step>,
    /// The answer of the review turn that ended the run, when the agent
    /// reviews its work ([`crate::PlanningAgent::with_review`]).
    pub review: Option<String>,
}

impl Plan {
    /// A plan with a fresh id whose steps are built from `descriptions`, all pending.
    pub fn new<I, S>(goal: impl Into<String>, descriptions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            id: uuid::Uuid::new_v4().to_string(),
            goal: goal.into(),
            steps: descriptions
                .into_iter()
                .enumerate()
                .map(|(index, d)| Step::new(index, d))
                .collect(),
            review: None,
        }
    }

    /// Whether every step is in a terminal state.
    pub fn is_finished(&self) -> bool {
        self.steps.iter().all(|s| s.status.is_terminal())
    }

    /// The first pending step, if any.
    pub fn next_pending(&mut self) -> Option<&mut Step> {
        self.steps.iter_mut().find(|s| s.status.is_pending())
    }

    /// Number of steps that completed.
    pub fn completed_count(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.status, StepStatus::Completed(_)))
            .count()
    }

    /// Number of steps that failed.
    pub fn failed_count(&self) -> usize {
        self.steps
            .iter()
            .filter(|s| matches!(s.status, StepStatus::Failed(_)))
            .count()
    }
}

/// One step of a [`Plan`].
#[derive(Debug)]
pub struct Step {
    /// Position in the plan (0-based).
    pub index: usize,
    /// What to do; sent to the model as the user message of the step's turn.
    pub description: String,
    /// Where the step is in its life cycle. Change it only through the
    /// transition methods, which enforce the state machine.
    pub status: StepStatus,
}

/// The state of a [`Step`].
///
/// Transitions are one-way: `Pending → Running → Completed | Failed | Skipped`,
/// and `Pending → Skipped` (a step the runtime decides not to run). Terminal
/// states never change. Not `Clone`: `Failed` owns its error.
#[derive(Debug)]
pub enum StepStatus {
    /// Waiting to run.
    Pending,
    /// Running now.
    Running,
    /// Finished, with the model's final response (boxed: it is large).
    Completed(Box<ChatResponse>),
    /// Failed, with the error.
    Failed(AgentError),
    /// Not run.
    Skipped,
}

impl StepStatus {
    /// Whether the step has not started.
    pub fn is_pending(&self) -> bool {
        matches!(self, Self::Pending)
    }

    /// Whether the step is finished (completed, failed or skipped).
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed(_) | Self::Failed(_) | Self::Skipped)
    }

    /// The state's name: `pending`, `running`, `completed`, `failed` or `skipped`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Completed(_) => "completed",
            Self::Failed(_) => "failed",
            Self::Skipped => "skipped",
        }
    }
}

impl Step {
    /// A pending step.
    pub fn new(index: usize, description: impl Into<String>) -> Self {
        Self {
            index,
            description: description.into(),
            status: StepStatus::Pending,
        }
    }

    fn transition(&mut self, to: StepStatus, allowed: bool) -> Result<(), AgentError> {
        if !allowed {
            return Err(AgentError::InvalidTransition {
                step: self.index,
                from: self.status.name(),
                to: to.name(),
            });
        }
        self.status = to;
        Ok(())
    }

    /// `Pending → Running`.
    ///
    /// # Errors
    /// [`AgentError::InvalidTransition`] from any other state.
    pub fn start(&mut self) -> Result<(), AgentError> {
        let ok = self.status.is_pending();
        self.transition(StepStatus::Running, ok)
    }

    /// `Running → Completed(response)`.
    ///
    /// # Errors
    /// [`AgentError::InvalidTransition`] from any other state.
    pub fn complete(&mut self, response: ChatResponse) -> Result<(), AgentError> {
        let ok = matches!(self.status, StepStatus::Running);
        self.transition(StepStatus::Completed(Box::new(response)), ok)
    }

    /// `Running → Failed(error)`.
    ///
    /// # Errors
    /// [`AgentError::InvalidTransition`] from any other state.
    pub fn fail(&mut self, error: AgentError) -> Result<(), AgentError> {
        let ok = matches!(self.status, StepStatus::Running);
        self.transition(StepStatus::Failed(error), ok)
    }

    /// `Pending | Running → Skipped`.
    ///
    /// # Errors
    /// [`AgentError::InvalidTransition`] from a terminal state.
    pub fn skip(&mut self) -> Result<(), AgentError> {
        let ok = !self.status.is_terminal();
        self.transition(StepStatus::Skipped, ok)
    }
}

#[cfg(test)]
mod tests {
    use agcore_types::{ChatMessage, FinishReason};

    use super::*;

    fn response() -> ChatResponse {
        ChatResponse::from_message("m", ChatMessage::assistant("done"), FinishReason::Stop)
    }

    #[test]
    fn happy_path_is_one_way() {
        let mut step = Step::new(0, "write tests");
        step.start().unwrap();
        step.complete(response()).unwrap();
        assert!(step.status.is_terminal());
        let err = step.start().unwrap_err();
        assert!(matches!(
            err,
            AgentError::InvalidTransition {
                step: 0,
                from: "completed",
                to: "running"
            }
        ));
        assert!(step.skip().is_err());
        assert!(step.fail(AgentError::Other("x".into())).is_err());
    }

    #[test]
    fn cannot_complete_or_fail_without_running() {
        let mut step = Step::new(3, "x");
        assert!(step.complete(response()).is_err());
        assert!(step.fail(AgentError::Other("x".into())).is_err());
        assert!(
            step.status.is_pending(),
            "a refused transition leaves the state unchanged"
        );
    }

    #[test]
    fn pending_and_running_can_be_skipped() {
        let mut a = Step::new(0, "a");
        a.skip().unwrap();
        let mut b = Step::new(1, "b");
        b.start().unwrap();
        b.skip().unwrap();
        assert_eq!(b.status.name(), "skipped");
    }

    #[test]
    fn plan_counts_and_next_pending() {
        let mut plan = Plan::new("goal", ["one", "two", "three"]);
        assert_eq!(plan.steps[2].index, 2);
        let first = plan.next_pending().unwrap();
        first.start().unwrap();
        first.complete(response()).unwrap();
        let second = plan.next_pending().unwrap();
        assert_eq!(second.index, 1);
        second.start().unwrap();
        second.fail(AgentError::Other("boom".into())).unwrap();
        plan.steps[2].skip().unwrap();
        assert!(plan.is_finished());
        assert_eq!((plan.completed_count(), plan.failed_count()), (1, 1));
    }
}
