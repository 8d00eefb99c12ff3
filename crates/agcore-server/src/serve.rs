//! Running the server on a socket until a shutdown signal, and the stdio MCP server.

use std::future::Future;
use std::sync::Arc;

use agcore::memory::long_term::{LongTermMemory, MemoryScope};
use rmcp::ServiceExt;
use tokio::net::TcpListener;

use crate::mcp::MemoryMcp;
use crate::{AppState, ServerError, router};

/// Serves [`router`] on `listener` until `shutdown` resolves, then lets the
/// requests in flight finish and flushes background memory work
/// ([`AppState::finish`]).
///
/// # Errors
/// [`ServerError::Io`] when the socket fails.
pub async fn serve(
    listener: TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let app = router(Arc::clone(&state));
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await?;
    state.finish().await;
    tracing::info!("server stopped; background memory work finished");
    Ok(())
}

/// Resolves on Ctrl-C or (Unix) SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}

/// Serves the memory tools of `scope` over stdin / stdout (MCP stdio
/// transport) until the client closes the stream.
///
/// # Errors
/// [`ServerError::Io`] when the transport fails.
pub async fn serve_stdio(memory: &LongTermMemory, scope: MemoryScope) -> Result<(), ServerError> {
    let service = MemoryMcp::for_scope(memory, scope)
        .serve(rmcp::transport::stdio())
        .await
        .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?;
    service
        .waiting()
        .await
        .map_err(|e| ServerError::Io(std::io::Error::other(e.to_string())))?;
    Ok(())
}
