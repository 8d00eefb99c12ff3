use std::time::Instant;

use futures::future::join_all;
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::{
    ApprovalRequest, InvokeOptions, PermissionAction, ToolContext, ToolError, ToolInvocation,
    ToolOutput, ToolRegistry,
};

/// The call pipeline: lookup, deny rules, validation, approval, execution.
impl ToolRegistry {
    /// Validates and runs one call with the registry's default options.
    ///
    /// # Errors
    /// See the steps on [`ToolRegistry`]; a tool's own failure is returned
    /// as the tool gave it.
    pub async fn invoke(
        &self,
        name: &str,
        args: serde_json::Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        self.invoke_with(name, args, ctx, self.options()).await
    }

    /// Validates and runs one call with `options` (only the timeout applies).
    ///
    /// # Errors
    /// As [`Self::invoke`].
    pub async fn invoke_with(
        &self,
        name: &str,
        args: serde_json::Value,
        ctx: &ToolContext,
        options: &InvokeOptions,
    ) -> Result<ToolOutput, ToolError> {
        let span = tracing::info_span!(
            "tool_call",
            tool = %name,
            latency_ms = tracing::field::Empty,
            outcome = tracing::field::Empty,
        );
        let started = Instant::now();
        let result = self
            .run_call(name, args, ctx, options)
            .instrument(span.clone())
            .await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        span.record("latency_ms", latency_ms);
        span.record("outcome", outcome(&result));
        if let Err(e) = &result {
            span.in_scope(|| tracing::debug!(error = %e, "tool call failed"));
        }
        result
    }

    /// Runs many calls concurrently with the registry's default options;
    /// see [`Self::invoke_all_with`].
    pub async fn invoke_all<C: Into<ToolInvocation>>(
        &self,
        calls: impl IntoIterator<Item = C>,
        ctx: &ToolContext,
    ) -> Vec<Result<ToolOutput, ToolError>> {
        self.invoke_all_with(calls, ctx, self.options()).await
    }

    /// Runs many calls concurrently — at most `options.max_concurrency` at
    /// once, each bounded by `options.timeout` — and returns one result per
    /// call, in input order. One call failing does not stop the others;
    /// cancelling `ctx` ends the running calls and the waiting ones with
    /// [`ToolError::Cancelled`].
    pub async fn invoke_all_with<C: Into<ToolInvocation>>(
        &self,
        calls: impl IntoIterator<Item = C>,
        ctx: &ToolContext,
        options: &InvokeOptions,
    ) -> Vec<Result<ToolOutput, ToolError>> {
        let limit = Semaphore::new(options.max_concurrency.max(1));
        let limit = &limit;
        let runs = calls.into_iter().map(Into::into).map(|call: ToolInvocation| async move {
            let _permit = tokio::select! {
                biased;
                () = ctx.cancellation.cancelled() => return Err(ToolError::Cancelled(call.name)),
                permit = limit.acquire() => permit.map_err(|_| ToolError::Cancelled(call.name.clone()))?,
            };
            self.invoke_with(&call.name, call.args, ctx, options).await
        });
        join_all(runs).await
    }

    async fn run_call(
        &self,
        name: &str,
        args: serde_json::Value,
        ctx: &ToolContext,
        options: &InvokeOptions,
    ) -> Result<ToolOutput, ToolError> {
        if ctx.cancellation.is_cancelled() {
            return Err(ToolError::Cancelled(name.to_owned()));
        }
        let entry = self
            .entry(name)
            .ok_or_else(|| ToolError::NotFound(name.to_owned()))?;
        if let Some(checker) = self.permissions()
            && checker.decide(name) == PermissionAction::Deny
        {
            checker.check(name)?;
        }
        entry.validator.validate(name, &args)?;
        if let Some(checker) = self.permissions() {
            let request = ApprovalRequest::new(name, &args, ctx);
            tokio::select! {
                biased;
                () = ctx.cancellation.cancelled() => return Err(ToolError::Cancelled(name.to_owned())),
                checked = checker.check_call(request) => checked?,
            }
        }
        let execution = entry.tool.execute(args, ctx);
        let bounded = async {
            match options.timeout {
                Some(limit) => tokio::time::timeout(limit, execution)
                    .await
                    .unwrap_or_else(|_| {
                        Err(ToolError::Timeout {
                            tool: name.to_owned(),
                            timeout: limit,
                        })
                    }),
                None => execution.await,
            }
        };
        tokio::select! {
            biased;
            () = ctx.cancellation.cancelled() => Err(ToolError::Cancelled(name.to_owned())),
            result = bounded => result,
        }
    }
}

fn outcome(result: &Result<ToolOutput, ToolError>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(ToolError::NotFound(_)) => "not_found",
        Err(ToolError::InvalidArguments { .. }) => "invalid_arguments",
        Err(ToolError::PermissionDenied { .. }) => "permission_denied",
        Err(ToolError::Timeout { .. }) => "timeout",
        Err(ToolError::Cancelled(_)) => "cancelled",
        Err(ToolError::Mcp { .. }) => "mcp_error",
        Err(_) => "error",
    }
}
