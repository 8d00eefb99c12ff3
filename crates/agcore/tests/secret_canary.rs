//! A canary API key and database password sent through every configuration
//! path never shows up in `Debug`, `Display`, errors or tracing output at
//! any level — including when a hostile server echoes the request headers
//! back in its error body.
#![cfg(all(feature = "openai", feature = "memory"))]

use std::io::Write;
use std::sync::{Arc, Mutex};

use agcore::llm::embedding::{EmbeddingModel, InputKind, OpenAiEmbedder, OpenAiEmbeddingConfig};
use agcore::llm::{LlmProvider, OpenAiConfig, OpenAiProvider};
use agcore::types::{ChatMessage, ChatRequest};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

const CANARY: &str = "sk-canary-9d3e51b7f0";

/// Every line tracing writes, at TRACE level.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut out) = self.0.lock() {
            out.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        self.0
            .lock()
            .map(|out| String::from_utf8_lossy(&out).into_owned())
            .unwrap_or_default()
    }
}

/// A server answering every request with 401 and the request's headers in
/// the error message, as a hostile or careless server might.
async fn echoing_server() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = vec![0_u8; 64 * 1024];
                let n = socket.read(&mut buf).await.unwrap_or(0);
                let request =
                    String::from_utf8_lossy(buf.get(..n).unwrap_or_default()).into_owned();
                let headers: String = request
                    .lines()
                    .take_while(|l| !l.is_empty())
                    .collect::<Vec<_>>()
                    .join(" | ")
                    .replace('"', "'");
                let body = format!(r#"{{"error": {{"message": "bad key; you sent {headers}"}}}}"#);
                let response = format!(
                    "HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n\
                     content-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
            });
        }
    });
    Ok(format!("http://{addr}/v1"))
}

fn assert_clean(what: &str, text: &str) {
    assert!(!text.contains(CANARY), "{what} shows the secret: {text}");
}

#[tokio::test(flavor = "current_thread")]
async fn api_keys_stay_out_of_debug_errors_and_traces() {
    let captured = Captured::default();
    let writer = captured.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let base = echoing_server().await.unwrap();

    // Chat completions: config, provider, the 401 error.
    let config = OpenAiConfig::new(base.clone())
        .with_api_key(CANARY)
        .with_default_model("m");
    assert_clean("OpenAiConfig Debug", &format!("{config:?} {config:#?}"));
    let provider = OpenAiProvider::new(config).unwrap();
    assert_clean("OpenAiProvider Debug", &format!("{provider:?}"));
    let request = ChatRequest::new("m", vec![ChatMessage::user("hello")]);
    let err = provider.chat(request.clone()).await.unwrap_err();
    assert!(
        err.to_string().contains("bad key"),
        "the echo arrived: {err}"
    );
    assert_clean("chat error", &format!("{err} {err:?}"));
    let err = provider.chat_stream(request).await.err().unwrap();
    assert_clean("stream error", &format!("{err} {err:?}"));

    // Embeddings: config, embedder, the 401 error.
    let config = OpenAiEmbeddingConfig::new(base, "e").with_api_key(CANARY);
    assert_clean("OpenAiEmbeddingConfig Debug", &format!("{config:?}"));
    let embedder = OpenAiEmbedder::new(config).unwrap();
    assert_clean("OpenAiEmbedder Debug", &format!("{embedder:?}"));
    let err = embedder
        .embed(&["hello".to_owned()], InputKind::Document)
        .await
        .unwrap_err();
    assert_clean("embedding error", &format!("{err} {err:?}"));

    // Long-term memory settings.
    let settings = agcore::memory::long_term::MemorySettings::from_toml_str(&format!(
        "[memory_agent]\napi_key = \"{CANARY}\"\n"
    ))
    .unwrap();
    assert_eq!(settings.memory_agent.api_key, CANARY);
    assert_clean("MemorySettings Debug", &format!("{settings:?}"));

    let traces = captured.text();
    assert!(
        traces.contains("llm.request"),
        "the request spans were captured: {traces}"
    );
    assert_clean("tracing output", &traces);
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "current_thread")]
async fn database_passwords_stay_out_of_errors() {
    for url in [
        format!("postgres://agcore:{CANARY}@127.0.0.1:1/agcore"),
        #[cfg(feature = "mysql")]
        format!("mysql://agcore:{CANARY}@127.0.0.1:1/agcore"),
        #[cfg(feature = "redis")]
        format!("redis://:{CANARY}@127.0.0.1:1/0"),
    ] {
        let err = agcore::memory::open(&url).await.err().unwrap();
        assert_clean("open error", &format!("{err} {err:?}"));
    }
}
