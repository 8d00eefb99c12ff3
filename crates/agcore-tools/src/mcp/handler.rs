//! The client side of the MCP session: identifies agcore and listens to server notifications.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

use rmcp::{
    ClientHandler, RoleClient,
    model::{ClientCapabilities, ClientConfig, Implementation},
    service::NotificationContext,
};

/// Client handler: sends agcore's name and version in `initialize` and records
/// `notifications/tools/list_changed`. Server-to-client requests (sampling,
/// elicitation, roots) are answered with rmcp's defaults (method not found).
#[derive(Debug, Clone)]
pub(crate) struct AgcoreClientHandler {
    server: Arc<str>,
    tools_changed: Arc<AtomicBool>,
}

impl AgcoreClientHandler {
    pub(crate) fn new(server: &str, tools_changed: Arc<AtomicBool>) -> Self {
        Self {
            server: server.into(),
            tools_changed,
        }
    }
}

impl ClientHandler for AgcoreClientHandler {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("agcore", env!("CARGO_PKG_VERSION")),
        )
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        tracing::debug!(server = %self.server, "MCP server's tool list changed");
        self.tools_changed.store(true, Ordering::Release);
        std::future::ready(())
    }
}
