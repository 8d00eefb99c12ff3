//! One live MCP session, shared by the client and its tools.

use std::{
    collections::HashSet,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use rmcp::{
    Peer, RoleClient,
    model::{CallToolRequestParams, CallToolResponse, PaginatedRequestParams},
    service::RunningService,
};
use serde_json::Value;

use super::{
    content::{error_message, result_output},
    errors::CallSite,
    handler::AgcoreClientHandler,
    launch::StderrTail,
};
use crate::{ToolContext, ToolError, ToolOutput};

/// Longest time [`Session::shutdown`] waits for the transport to close (the
/// child gets 3 s after stdin closes, 3 s after `SIGTERM`, then `SIGKILL`).
const SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);
/// A server announcing more tool pages than this is treated as broken.
const MAX_LIST_PAGES: usize = 1000;

/// The running rmcp service plus what calls need: server name, limit, stderr tail.
pub(crate) struct Session {
    pub(crate) server: String,
    pub(crate) call_timeout: Duration,
    peer: Peer<RoleClient>,
    running: tokio::sync::Mutex<Option<RunningService<RoleClient, AgcoreClientHandler>>>,
    stderr: Option<Arc<StderrTail>>,
    shut_down: AtomicBool,
}

impl Session {
    pub(crate) fn new(
        server: String,
        call_timeout: Duration,
        running: RunningService<RoleClient, AgcoreClientHandler>,
        stderr: Option<Arc<StderrTail>>,
    ) -> Self {
        Self {
            server,
            call_timeout,
            peer: running.peer().clone(),
            running: tokio::sync::Mutex::new(Some(running)),
            stderr,
            shut_down: AtomicBool::new(false),
        }
    }

    pub(crate) fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }

    fn site<'a>(&'a self, tool: &'a str) -> CallSite<'a> {
        CallSite {
            server: &self.server,
            tool,
            stderr_tail: self.stderr.as_ref().map(|tail| tail.snapshot()),
        }
    }

    /// Whether the session was shut down or its transport closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.shut_down.load(Ordering::Acquire) || self.peer.is_transport_closed()
    }

    /// Fails fast when the session cannot carry a request.
    fn ensure_open(&self, tool: &str) -> Result<(), ToolError> {
        if self.shut_down.load(Ordering::Acquire) {
            return Err(ToolError::Mcp {
                server: self.server.clone(),
                message: format!("the client was shut down; `{tool}` cannot be called"),
            });
        }
        if self.peer.is_transport_closed() {
            return Err(self.site(tool).gone("connection closed"));
        }
        Ok(())
    }

    /// All tools of the server, following `nextCursor` pages; each page within the call timeout.
    pub(crate) async fn fetch_tools(&self) -> Result<Vec<rmcp::model::Tool>, ToolError> {
        const REQUEST: &str = "tools/list";
        self.ensure_open(REQUEST)?;
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut seen_cursors = HashSet::new();
        for _ in 0..MAX_LIST_PAGES {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let page = tokio::time::timeout(self.call_timeout, self.peer.list_tools(Some(params)))
                .await
                .map_err(|_| ToolError::Timeout {
                    tool: REQUEST.to_owned(),
                    timeout: self.call_timeout,
                })?
                .map_err(|e| self.site(REQUEST).service_error(e))?;
            tools.extend(page.tools);
            match page.next_cursor {
                None => return Ok(tools),
                Some(next) if !seen_cursors.insert(next.clone()) => {
                    return Err(self.site(REQUEST).mcp(format!(
                        "`tools/list` returned the cursor `{next}` twice (pagination loop)"
                    )));
                }
                Some(next) => cursor = Some(next),
            }
        }
        Err(self.site(REQUEST).mcp(format!(
            "`tools/list` returned more than {MAX_LIST_PAGES} pages"
        )))
    }

    /// Calls the server's tool `remote` on behalf of the exposed tool `exposed`.
    ///
    /// Stops at the call timeout or when `ctx.cancellation` fires; either way
    /// the request is abandoned and the server sent `notifications/cancelled`.
    pub(crate) async fn call(
        &self,
        exposed: &str,
        remote: &str,
        args: Value,
        ctx: &ToolContext,
    ) -> Result<ToolOutput, ToolError> {
        let arguments = match args {
            Value::Object(map) => Some(map),
            Value::Null => None,
            other => {
                return Err(ToolError::InvalidArguments {
                    tool: exposed.to_owned(),
                    path: String::new(),
                    message: format!("arguments must be a JSON object, got `{other}`"),
                });
            }
        };
        self.ensure_open(exposed)?;
        let mut params = CallToolRequestParams::new(remote.to_owned());
        if let Some(arguments) = arguments {
            params = params.with_arguments(arguments);
        }
        let response = tokio::select! {
            biased;
            () = ctx.cancellation.cancelled() => return Err(ToolError::Cancelled(exposed.to_owned())),
            response = tokio::time::timeout(self.call_timeout, self.peer.call_tool_once(params)) => {
                response.map_err(|_| ToolError::Timeout {
                    tool: exposed.to_owned(),
                    timeout: self.call_timeout,
                })?
            }
        };
        match response {
            Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
                Err(ToolError::ExecutionFailed {
                    tool: exposed.to_owned(),
                    message: error_message(&result),
                })
            }
            Ok(CallToolResponse::Complete(result)) => Ok(result_output(&result)),
            Ok(_) => Err(self.site(exposed).mcp(format!(
                "`{exposed}` answered with a multi-round or task result, which this client does not support"
            ))),
            Err(error) => Err(self.site(exposed).service_error(error)),
        }
    }

    /// Closes the session: the transport is closed and, for a child process,
    /// the child is waited for (then sent `SIGTERM`, then killed). Idempotent.
    pub(crate) async fn shutdown(&self) -> Result<(), ToolError> {
        self.shut_down.store(true, Ordering::Release);
        let running = self.running.lock().await.take();
        let Some(mut running) = running else {
            return Ok(());
        };
        match running.close_with_timeout(SHUTDOWN_TIMEOUT).await {
            Ok(Some(_)) => Ok(()),
            Ok(None) => Err(ToolError::Mcp {
                server: self.server.clone(),
                message: format!(
                    "the session did not close within {SHUTDOWN_TIMEOUT:?}; it is killed in the background"
                ),
            }),
            Err(e) => Err(ToolError::Mcp {
                server: self.server.clone(),
                message: format!("the session task failed while closing: {e}"),
            }),
        }
    }
}
