//! Integration tests: permission rules, modes, approvers.
#![cfg(test)]

use crate::tool_support;

use std::sync::{Arc, Mutex};

use agcore_tools::{
    Approval, ApprovalRequest, Approver, PermissionAction, PermissionChecker, PermissionConfig,
    PermissionMode, PermissionRule, ToolContext, ToolError, ToolRegistry,
};
use async_trait::async_trait;
use serde_json::json;

/// Approves or denies everything and records what it was asked.
struct Recorder {
    approve: bool,
    seen: Mutex<Vec<(String, serde_json::Value, Option<String>)>>,
}

impl Recorder {
    fn new(approve: bool) -> Arc<Self> {
        Arc::new(Self {
            approve,
            seen: Mutex::new(Vec::new()),
        })
    }
}

#[async_trait]
impl Approver for Recorder {
    async fn approve(&self, request: ApprovalRequest<'_>) -> Approval {
        self.seen.lock().unwrap().push((
            request.tool.to_owned(),
            request.arguments.clone(),
            request.context.user_id.clone(),
        ));
        if self.approve {
            Approval::Approved
        } else {
            Approval::Denied("the user said no".into())
        }
    }
}

#[test]
fn deny_wins_over_allow_regardless_of_rule_order() {
    for rules in [
        vec![
            PermissionRule::allow("fs_*"),
            PermissionRule::deny("fs_delete"),
        ],
        vec![
            PermissionRule::deny("fs_delete"),
            PermissionRule::allow("fs_*"),
        ],
        vec![
            PermissionRule::allow("fs_delete"),
            PermissionRule::deny("*"),
        ],
    ] {
        let checker = PermissionChecker::new(
            PermissionConfig::new(PermissionMode::AllowList).with_rules(rules.clone()),
        )
        .unwrap();
        assert_eq!(
            checker.decide("fs_delete"),
            PermissionAction::Deny,
            "{rules:?}"
        );
    }
}

#[test]
fn deny_beats_ask_and_ask_beats_allow() {
    let checker =
        PermissionChecker::new(PermissionConfig::new(PermissionMode::DenyList).with_rules([
            PermissionRule::allow("*"),
            PermissionRule::ask("shell_*"),
            PermissionRule::deny("shell_rm"),
        ]))
        .unwrap();
    assert_eq!(checker.decide("read"), PermissionAction::Allow);
    assert_eq!(checker.decide("shell_ls"), PermissionAction::Ask);
    assert_eq!(checker.decide("shell_rm"), PermissionAction::Deny);
}

#[test]
fn modes_decide_unmatched_tools() {
    let allow_list = PermissionChecker::new(PermissionConfig::allow_list(["get_weather"])).unwrap();
    assert!(allow_list.check("get_weather").is_ok());
    assert!(matches!(
        allow_list.check("delete_file"),
        Err(ToolError::PermissionDenied { tool, .. }) if tool == "delete_file"
    ));

    let deny_list = PermissionChecker::new(PermissionConfig::deny_list(["delete_*"])).unwrap();
    assert!(deny_list.check("get_weather").is_ok());
    assert!(deny_list.check("delete_file").is_err());

    // No rules at all: the mode alone decides.
    let open = PermissionChecker::new(PermissionConfig::new(PermissionMode::DenyList)).unwrap();
    assert_eq!(open.decide("anything"), PermissionAction::Allow);
    let closed = PermissionChecker::new(PermissionConfig::new(PermissionMode::AllowList)).unwrap();
    assert_eq!(closed.decide("anything"), PermissionAction::Deny);
}

#[test]
fn glob_syntax_and_bad_patterns() {
    let checker = PermissionChecker::new(PermissionConfig::allow_list([
        "github__*",
        "fs_{read,list}",
        "tool?",
    ]))
    .unwrap();
    assert_eq!(
        checker.decide("github__create_issue"),
        PermissionAction::Allow
    );
    assert_eq!(checker.decide("fs_list"), PermissionAction::Allow);
    assert_eq!(checker.decide("fs_write"), PermissionAction::Deny);
    assert_eq!(checker.decide("tool1"), PermissionAction::Allow);
    assert_eq!(checker.decide("tool12"), PermissionAction::Deny);

    let err = PermissionChecker::new(PermissionConfig::allow_list(["fs_[read"])).unwrap_err();
    assert!(matches!(err, ToolError::InvalidPattern { pattern, .. } if pattern == "fs_[read"));
}

fn registry_with(checker: PermissionChecker) -> ToolRegistry {
    let registry = ToolRegistry::new().with_permissions(checker);
    registry.register(tool_support::echo("shell_ls")).unwrap();
    registry.register(tool_support::echo("read")).unwrap();
    registry
}

fn ask_shell() -> PermissionConfig {
    PermissionConfig::new(PermissionMode::DenyList).with_rule(PermissionRule::ask("shell_*"))
}

#[tokio::test]
async fn ask_with_approver_yes_runs_the_call() {
    let approver = Recorder::new(true);
    let registry = registry_with(
        PermissionChecker::new(ask_shell())
            .unwrap()
            .with_approver(approver.clone()),
    );
    let ctx = ToolContext::new().with_user_id("alice");
    let out = registry
        .invoke("shell_ls", json!({"value": "/tmp"}), &ctx)
        .await
        .unwrap();
    assert_eq!(out, json!("/tmp"));
    // Allowed tools do not bother the approver.
    registry
        .invoke("read", json!({"value": 1}), &ctx)
        .await
        .unwrap();
    let seen = approver.seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        [(
            "shell_ls".to_owned(),
            json!({"value": "/tmp"}),
            Some("alice".to_owned())
        )]
    );
}

#[tokio::test]
async fn ask_with_approver_no_is_denied_with_reason() {
    let approver = Recorder::new(false);
    let registry = registry_with(
        PermissionChecker::new(ask_shell())
            .unwrap()
            .with_approver(approver.clone()),
    );
    let err = registry
        .invoke("shell_ls", json!({"value": 1}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(
        matches!(&err, ToolError::PermissionDenied { reason, .. } if reason == "the user said no")
    );
    assert!(!err.is_recoverable());
    assert_eq!(approver.seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn ask_without_approver_is_denied() {
    let registry = registry_with(PermissionChecker::new(ask_shell()).unwrap());
    let err = registry
        .invoke("shell_ls", json!({"value": 1}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::PermissionDenied { .. }));
}

#[tokio::test]
async fn denied_tools_are_refused_before_validation_and_approval() {
    let approver = Recorder::new(true);
    let config = ask_shell().with_rule(PermissionRule::deny("shell_ls"));
    let registry = registry_with(
        PermissionChecker::new(config)
            .unwrap()
            .with_approver(approver.clone()),
    );
    // Invalid arguments, but the denial comes first.
    let err = registry
        .invoke("shell_ls", json!({}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::PermissionDenied { .. }), "{err:?}");
    assert!(approver.seen.lock().unwrap().is_empty());
}

#[tokio::test]
async fn approver_is_not_asked_about_invalid_arguments() {
    let approver = Recorder::new(true);
    let registry = registry_with(
        PermissionChecker::new(ask_shell())
            .unwrap()
            .with_approver(approver.clone()),
    );
    let err = registry
        .invoke("shell_ls", json!({"wrong": 1}), &ToolContext::new())
        .await
        .unwrap_err();
    assert!(matches!(err, ToolError::InvalidArguments { .. }));
    assert!(approver.seen.lock().unwrap().is_empty());
}
