//! The browser test's setup: the server state with hybrid search over the
//! E5 server, the server on a real socket, a request tripwire, the
//! WebDriver session, and small element helpers.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agcore::agent::LongTermOptions;
use agcore::llm::MockProvider;
use agcore::llm::embedding::{EmbeddingModel, OpenAiEmbedder, OpenAiEmbeddingConfig, QueryMode};
use agcore::memory::hybrid::{DenseIndex, EmbeddingQueueConfig, HybridConfig};
use agcore::memory::long_term::{InMemoryLongTerm, LongTermMemory};
use agcore::memory::vector::InMemoryVectors;
use agcore_memory_testkit::service_url;
use agcore_server::{AppState, ChatRuntime, KeyStore};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::json;

/// Where the screenshots go.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../target"));
    let dir = target.join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshot_dir().join(format!("{name}.png")), png).unwrap();
}

/// Hybrid long-term memory over the E5 server.
pub async fn hybrid_state() -> Option<(Arc<AppState>, Arc<DenseIndex>)> {
    let base = service_url("AGCORE_TEST_E5_BASE_URL")?;
    let model =
        std::env::var("AGCORE_TEST_E5_MODEL").unwrap_or_else(|_| "multilingual-e5-small-q4".into());
    let config = OpenAiEmbeddingConfig::new(base, model)
        .with_query_mode(QueryMode::input_type_query_passage())
        .with_normalized(true)
        .with_dimensions(384);
    let embedder: Arc<dyn EmbeddingModel> = Arc::new(OpenAiEmbedder::new(config).unwrap());
    let vectors = Arc::new(InMemoryVectors::new(embedder.space()));
    let dense = DenseIndex::new(embedder, vectors, EmbeddingQueueConfig::default()).unwrap();
    let memory = LongTermMemory::new(InMemoryLongTerm::new())
        .with_dense(Arc::clone(&dense), HybridConfig::default());
    // Chat turns on the mock provider (deterministic replies), memory
    // extraction off: the test watches what each turn recalls.
    let provider = MockProvider::new()
        .push_text("You drink green tea.")
        .push_text("I do not know.")
        .push_text("Green tea, every morning.");
    let chat = ChatRuntime::new(Arc::new(provider), "mock")
        .with_long_term(LongTermOptions::default().extraction(false));
    let state = AppState::new(memory, KeyStore::in_memory())
        .with_dense(Some(Arc::clone(&dense)))
        .with_chat(chat);
    Some((Arc::new(state), dense))
}

/// Serves the router on a free loopback port; its base URL.
pub async fn serve(state: Arc<AppState>) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, agcore_server::router(state))
            .await
            .unwrap();
    });
    format!("http://{addr}")
}

/// A listener counting the connections it gets: the hostile memory's URL.
pub async fn tripwire() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let hits = Arc::new(AtomicUsize::new(0));
    let counter = Arc::clone(&hits);
    tokio::spawn(async move {
        while let Ok((_socket, _)) = listener.accept().await {
            counter.fetch_add(1, Ordering::SeqCst);
        }
    });
    (format!("http://{addr}"), hits)
}

pub async fn browser(webdriver: &str) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({ "args": ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"] }),
    );
    ClientBuilder::rustls()
        .unwrap()
        .capabilities(caps)
        .connect(webdriver)
        .await
        .unwrap_or_else(|e| panic!("no WebDriver session at {webdriver}: {e}"))
}

pub async fn css(c: &Client, selector: &str) -> fantoccini::elements::Element {
    let found = c
        .wait()
        .at_most(Duration::from_secs(20))
        .for_element(Locator::Css(selector))
        .await;
    match found {
        Ok(element) => element,
        Err(e) => {
            let url = c
                .current_url()
                .await
                .map(|u| u.to_string())
                .unwrap_or_default();
            let source = c.source().await.unwrap_or_default();
            panic!("no `{selector}` on {url}: {e}\n{source}")
        }
    }
}

pub async fn text(c: &Client, selector: &str) -> String {
    css(c, selector).await.text().await.unwrap()
}

pub async fn type_into(c: &Client, selector: &str, value: &str) {
    let field = css(c, selector).await;
    field.clear().await.unwrap();
    field.send_keys(value).await.unwrap();
}

/// `true` when an alert, confirm or prompt dialog is open.
pub async fn dialog_open(c: &Client) -> bool {
    c.get_alert_text().await.is_ok()
}
