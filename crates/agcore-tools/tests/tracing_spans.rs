//! Integration test: each call runs in a `tool_call` span with tool, latency and outcome.
#![cfg(test)]

use crate::tool_support;

use std::io::Write;
use std::sync::{Arc, Mutex};

use agcore_tools::{ToolContext, ToolRegistry, TypedTool};
use serde_json::json;
use tracing_subscriber::fmt::format::FmtSpan;

#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn spans_carry_tool_latency_and_outcome() {
    let buffer = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .with_writer({
            let buffer = buffer.clone();
            move || buffer.clone()
        })
        .with_ansi(false)
        .with_span_events(FmtSpan::CLOSE)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    tracing::subscriber::with_default(subscriber, || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let registry = ToolRegistry::new();
            registry
                .register(tool_support::Weather.into_tool())
                .unwrap();
            let ctx = ToolContext::new();
            registry
                .invoke("get_weather", json!({"city": "北京"}), &ctx)
                .await
                .unwrap();
            registry
                .invoke("get_weather", json!({}), &ctx)
                .await
                .unwrap_err();
        });
    });
    let log = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    let closes: Vec<&str> = log.lines().filter(|l| l.contains("close")).collect();
    assert_eq!(closes.len(), 2, "{log}");
    assert!(
        closes[0].contains("tool_call") && closes[0].contains("tool=get_weather"),
        "{log}"
    );
    assert!(closes[0].contains("latency_ms="), "{log}");
    assert!(closes[0].contains("outcome=\"ok\""), "{log}");
    assert!(closes[1].contains("outcome=\"invalid_arguments\""), "{log}");
    assert!(log.contains("tool call failed"), "{log}");
}
