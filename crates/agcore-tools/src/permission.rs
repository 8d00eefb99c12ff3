use std::sync::Arc;

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::{Approval, ApprovalRequest, Approver, ToolError};

/// What a rule (or the mode's default) decides for a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PermissionAction {
    /// Run the tool.
    Allow,
    /// Ask the application's [`Approver`] first; denied when there is none.
    Ask,
    /// Refuse the call.
    Deny,
}

/// What happens to a tool no rule matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum PermissionMode {
    /// Only tools matched by an `allow` (or `ask`) rule may run; everything
    /// else is denied.
    AllowList,
    /// Every tool may run unless a `deny` (or `ask`) rule matches it.
    #[default]
    DenyList,
}

impl PermissionMode {
    /// The decision for a tool no rule matches.
    pub fn default_action(self) -> PermissionAction {
        match self {
            Self::AllowList => PermissionAction::Deny,
            Self::DenyList => PermissionAction::Allow,
        }
    }
}

/// One rule: tools whose name matches the glob `pattern` get `action`.
///
/// Patterns use [globset](https://docs.rs/globset) syntax on the whole tool
/// name: `*` matches any run of characters, `?` one character, `[abc]` a
/// class, `{a,b}` alternatives — `github__*`, `fs_{read,list}`, `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct PermissionRule {
    /// The tool-name glob.
    pub pattern: String,
    /// The decision for matching tools.
    pub action: PermissionAction,
}

impl PermissionRule {
    /// A rule giving `action` to tools matching `pattern`.
    pub fn new(pattern: impl Into<String>, action: PermissionAction) -> Self {
        Self {
            pattern: pattern.into(),
            action,
        }
    }

    /// Allows tools matching `pattern`.
    pub fn allow(pattern: impl Into<String>) -> Self {
        Self::new(pattern, PermissionAction::Allow)
    }

    /// Asks the approver for tools matching `pattern`.
    pub fn ask(pattern: impl Into<String>) -> Self {
        Self::new(pattern, PermissionAction::Ask)
    }

    /// Denies tools matching `pattern`.
    pub fn deny(pattern: impl Into<String>) -> Self {
        Self::new(pattern, PermissionAction::Deny)
    }
}

/// The rules and the mode of a [`PermissionChecker`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct PermissionConfig {
    /// What unmatched tools get.
    pub mode: PermissionMode,
    /// The rules; their order does not matter (see [`PermissionChecker`]).
    pub rules: Vec<PermissionRule>,
}

impl PermissionConfig {
    /// An empty configuration in `mode`.
    pub fn new(mode: PermissionMode) -> Self {
        Self {
            mode,
            rules: Vec::new(),
        }
    }

    /// Allow-list mode: only tools matching one of `patterns` may run.
    pub fn allow_list<S: Into<String>>(patterns: impl IntoIterator<Item = S>) -> Self {
        Self::new(PermissionMode::AllowList)
            .with_rules(patterns.into_iter().map(PermissionRule::allow))
    }

    /// Deny-list mode: every tool may run except those matching `patterns`.
    pub fn deny_list<S: Into<String>>(patterns: impl IntoIterator<Item = S>) -> Self {
        Self::new(PermissionMode::DenyList)
            .with_rules(patterns.into_iter().map(PermissionRule::deny))
    }

    /// Adds a rule.
    pub fn with_rule(mut self, rule: PermissionRule) -> Self {
        self.rules.push(rule);
        self
    }

    /// Adds rules.
    pub fn with_rules(mut self, rules: impl IntoIterator<Item = PermissionRule>) -> Self {
        self.rules.extend(rules);
        self
    }
}

/// Decides whether a tool may run: `allow`, `ask` and `deny` rules by
/// tool-name glob, and an allow-list or deny-list mode for tools no rule
/// matches.
///
/// Precedence does not depend on rule order: a matching `deny` rule always
/// wins, then `ask`, then `allow`; with no match the mode decides
/// ([`PermissionMode::default_action`]). `ask` is resolved by the
/// [`Approver`] given with [`Self::with_approver`]; without one, `ask` means
/// deny. This is the allow/ask/deny permission model of OpenCode's agents.
///
/// # Examples
///
/// ```
/// use agcore_tools::{PermissionAction, PermissionChecker, PermissionConfig, PermissionRule};
///
/// let checker = PermissionChecker::new(
///     PermissionConfig::allow_list(["get_weather", "fs_*"]).with_rule(PermissionRule::deny("fs_delete")),
/// )?;
/// assert_eq!(checker.decide("get_weather"), PermissionAction::Allow);
/// assert_eq!(checker.decide("fs_read"), PermissionAction::Allow);
/// assert_eq!(checker.decide("fs_delete"), PermissionAction::Deny);
/// assert_eq!(checker.decide("delete_file"), PermissionAction::Deny);
/// # Ok::<(), agcore_tools::ToolError>(())
/// ```
#[derive(Clone)]
pub struct PermissionChecker {
    config: PermissionConfig,
    deny: GlobSet,
    ask: GlobSet,
    allow: GlobSet,
    approver: Option<Arc<dyn Approver>>,
}

impl PermissionChecker {
    /// Compiles the rules of `config`.
    ///
    /// # Errors
    /// [`ToolError::InvalidPattern`] naming the first glob that does not parse.
    pub fn new(config: PermissionConfig) -> Result<Self, ToolError> {
        let mut deny = GlobSetBuilder::new();
        let mut ask = GlobSetBuilder::new();
        let mut allow = GlobSetBuilder::new();
        for rule in &config.rules {
            let glob = Glob::new(&rule.pattern).map_err(|e| ToolError::InvalidPattern {
                pattern: rule.pattern.clone(),
                message: e.kind().to_string(),
            })?;
            match rule.action {
                PermissionAction::Deny => deny.add(glob),
                PermissionAction::Ask => ask.add(glob),
                PermissionAction::Allow => allow.add(glob),
            };
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| ToolError::InvalidPattern {
                pattern: e.glob().unwrap_or_default().to_owned(),
                message: e.kind().to_string(),
            })
        };
        Ok(Self {
            deny: build(deny)?,
            ask: build(ask)?,
            allow: build(allow)?,
            config,
            approver: None,
        })
    }

    /// Uses `approver` to resolve `ask` decisions.
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// The configuration this checker was built from.
    pub fn config(&self) -> &PermissionConfig {
        &self.config
    }

    /// The rule decision for `tool` (no approver consulted): deny, then ask,
    /// then allow, then the mode's default.
    pub fn decide(&self, tool: &str) -> PermissionAction {
        if self.deny.is_match(tool) {
            PermissionAction::Deny
        } else if self.ask.is_match(tool) {
            PermissionAction::Ask
        } else if self.allow.is_match(tool) {
            PermissionAction::Allow
        } else {
            self.config.mode.default_action()
        }
    }

    /// Whether `tool` may run without asking: `Ok` for `allow`.
    ///
    /// # Errors
    /// [`ToolError::PermissionDenied`] for `deny`, and for `ask` (which needs
    /// [`Self::check_call`] and an approver).
    pub fn check(&self, tool: &str) -> Result<(), ToolError> {
        match self.decide(tool) {
            PermissionAction::Allow => Ok(()),
            PermissionAction::Ask => Err(denied(tool, "requires approval")),
            PermissionAction::Deny => Err(denied(tool, "denied by permission rules")),
        }
    }

    /// Whether this call may run, asking the approver for `ask` decisions.
    ///
    /// # Errors
    /// [`ToolError::PermissionDenied`] when a rule or the mode denies the
    /// tool, when the approver refuses, or for `ask` without an approver.
    pub async fn check_call(&self, request: ApprovalRequest<'_>) -> Result<(), ToolError> {
        match self.decide(request.tool) {
            PermissionAction::Allow => Ok(()),
            PermissionAction::Deny => Err(denied(request.tool, "denied by permission rules")),
            PermissionAction::Ask => match &self.approver {
                None => Err(denied(
                    request.tool,
                    "requires approval and no approver is set",
                )),
                Some(approver) => match approver.approve(request).await {
                    Approval::Approved => Ok(()),
                    Approval::Denied(reason) => Err(denied(request.tool, &reason)),
                },
            },
        }
    }
}

impl std::fmt::Debug for PermissionChecker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PermissionChecker")
            .field("config", &self.config)
            .field("has_approver", &self.approver.is_some())
            .finish_non_exhaustive()
    }
}

fn denied(tool: &str, reason: &str) -> ToolError {
    ToolError::PermissionDenied {
        tool: tool.to_owned(),
        reason: reason.to_owned(),
    }
}
