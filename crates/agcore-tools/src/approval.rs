use async_trait::async_trait;

use crate::ToolContext;

/// The call an [`Approver`] is asked about.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ApprovalRequest<'a> {
    /// The tool name.
    pub tool: &'a str,
    /// The call's arguments (already validated against the tool's schema).
    pub arguments: &'a serde_json::Value,
    /// Who is calling.
    pub context: &'a ToolContext,
}

impl<'a> ApprovalRequest<'a> {
    /// A request for `tool` with `arguments` in `context`.
    pub fn new(tool: &'a str, arguments: &'a serde_json::Value, context: &'a ToolContext) -> Self {
        Self {
            tool,
            arguments,
            context,
        }
    }
}

/// The approver's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Approved,
    /// Refuse it, with a reason the model is told.
    Denied(String),
}

/// Resolves `ask` rules: the application asks a person (or a policy) whether
/// a call may run.
#[async_trait]
pub trait Approver: Send + Sync {
    /// Decides on one call. May wait as long as it needs (a person answering);
    /// the tool's timeout does not run meanwhile.
    async fn approve(&self, request: ApprovalRequest<'_>) -> Approval;
}
