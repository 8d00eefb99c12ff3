//! The management page in a real browser: headless Chromium driven over
//! WebDriver (chromedriver from `scripts/services.sh`, `AGCORE_TEST_WEBDRIVER_URL`),
//! the server in process on a real socket, hybrid search over the
//! multilingual E5 embedding server (`AGCORE_TEST_E5_BASE_URL`).
//!
//! Screenshots of each page go to `$CARGO_TARGET_DIR/screenshots/` (default
//! `target/screenshots/`). Without the servers the test is skipped with a
//! message, and fails under `CI=true` / `AGCORE_REQUIRE_SERVICES=1`.
#![cfg(test)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agcore::memory::hybrid::DenseIndex;
use agcore::memory::long_term::{MemoryScope, MemoryType, NewMemory};
use agcore_memory_testkit::service_url;
use agcore_server::{AppState, Grant};
use fantoccini::{Client, Locator};
use serde_json::json;

mod browser_support;

use browser_support::{
    browser, css, dialog_open, hybrid_state, serve, shot, text, tripwire, type_into,
};

const TEA: &str = "Alice drinks a cup of green tea every morning";
const PARAPHRASE: &str = "which hot beverage does she have at breakfast";
const DISTRACTORS: [&str; 3] = [
    "The team meeting moved to Wednesday afternoon",
    "Alice's laptop battery drains too quickly",
    "The quarterly budget report is due on Friday",
];

async fn sign_in(c: &Client, base: &str, key: &str) {
    c.goto(&format!("{base}/ui/")).await.unwrap();
    assert!(c.current_url().await.unwrap().path().ends_with("/ui/login"));
    shot(c, "01-sign-in").await;
    // Keyboard only: type the key, press Enter.
    css(c, "#key")
        .await
        .send_keys(&format!("{key}\u{E007}"))
        .await
        .unwrap();
    css(c, "#new-agent").await;
}

async fn create_agent(c: &Client, state: &AppState) {
    css(c, "#new-agent").await.click().await.unwrap();
    type_into(c, "#name", "helper").await;
    type_into(c, "#description", "Answers Alice's questions").await;
    type_into(c, "#prefetch_limit", "4").await;
    type_into(c, "#attachments", "docs").await;
    shot(c, "02-new-agent").await;
    css(c, "#save-agent").await.click().await.unwrap();
    assert!(text(c, ".notice").await.contains("Saved"));
    let agent = state
        .agents
        .get("helper")
        .await
        .expect("the agent was created");
    assert!(agent.memory.enabled);
    assert_eq!(agent.memory.prefetch_limit, 4);
    assert_eq!(agent.memory.attachments, ["docs"]);
}

/// One chat turn from the panel: the reply and the memory context shown.
async fn chat_turn(c: &Client, base: &str, message: &str) -> (String, String) {
    c.goto(&format!("{base}/ui/chat/helper/alice"))
        .await
        .unwrap();
    css(c, "#chat-message")
        .await
        .send_keys(message)
        .await
        .unwrap();
    css(c, "#chat-send").await.click().await.unwrap();
    for _ in 0..300 {
        let status = text(c, "#chat-status").await;
        if status == "Done." {
            break;
        }
        assert!(!status.contains("failed"), "{status}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(text(c, "#chat-status").await, "Done.");
    let reply = text(c, "#chat-log .turn.agent .content").await;
    let context = text(c, "#memory-context").await;
    (reply, context)
}

/// Sets the agent's memory switch from its edit page.
async fn set_memory(c: &Client, base: &str, state: &AppState, on: bool) {
    c.goto(&format!("{base}/ui/agents/helper")).await.unwrap();
    let checkbox = css(c, "#memory_enabled").await;
    assert_eq!(checkbox.is_selected().await.unwrap(), !on);
    checkbox.click().await.unwrap();
    css(c, "#save-agent").await.click().await.unwrap();
    css(c, ".notice").await;
    assert_eq!(
        css(c, "#memory_enabled").await.is_selected().await.unwrap(),
        on
    );
    assert_eq!(state.agents.get("helper").await.unwrap().memory.enabled, on);
    if !on {
        shot(c, "03-agent-memory-off").await;
    }
}

/// Memory on, off, on again: each next turn's memory context follows.
async fn memory_switch_is_honoured(c: &Client, base: &str, state: &AppState) {
    let (reply, context) = chat_turn(c, base, "What do I drink in the morning?").await;
    assert_eq!(reply, "You drink green tea.");
    assert!(
        context.contains("<memory-context>") && context.contains(TEA),
        "{context}"
    );
    shot(c, "08-chat").await;
    set_memory(c, base, state, false).await;
    let (reply, context) = chat_turn(c, base, "What do I drink in the morning?").await;
    assert_eq!(reply, "I do not know.");
    assert!(
        !context.contains(TEA) && context.starts_with("(empty"),
        "{context}"
    );
    set_memory(c, base, state, true).await;
    let (_, context) = chat_turn(c, base, "What do I drink in the morning?").await;
    assert!(context.contains(TEA), "{context}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_page_works_in_a_real_browser() {
    let Some(webdriver) = service_url("AGCORE_TEST_WEBDRIVER_URL") else {
        return;
    };
    let Some((state, dense)) = hybrid_state().await else {
        return;
    };
    let key = state.keys.create(&Grant::Admin).unwrap().0;
    let alice = state
        .memory
        .scoped(MemoryScope::new("helper", "alice").unwrap());
    for text in DISTRACTORS {
        alice
            .save(NewMemory::new(MemoryType::Project, text, text))
            .await
            .unwrap();
    }
    let base = serve(Arc::clone(&state)).await;
    let (trap, trap_hits) = tripwire().await;
    let c = browser(&webdriver).await;
    let outcome = steps(&c, &base, &key, &state, &dense, &trap).await;
    let closed = c.close().await;
    outcome.unwrap_or_else(|e| panic!("{e}"));
    closed.unwrap();
    assert_eq!(
        trap_hits.load(Ordering::SeqCst),
        0,
        "the hostile memory made the browser send a request"
    );
}

async fn steps(
    c: &Client,
    base: &str,
    key: &str,
    state: &AppState,
    dense: &DenseIndex,
    trap: &str,
) -> Result<(), String> {
    sign_in(c, base, key).await;
    create_agent(c, state).await;

    // Add a memory through the form, then find it by a paraphrase.
    c.goto(&format!("{base}/ui/memories/helper/alice"))
        .await
        .unwrap();
    type_into(c, "#new-content", TEA).await;
    type_into(c, "#new-tags", "drinks").await;
    css(c, "#add-button").await.click().await.unwrap();
    assert_eq!(text(c, "#memory-content").await, TEA);
    let id = c
        .current_url()
        .await
        .unwrap()
        .path()
        .rsplit('/')
        .next()
        .unwrap()
        .to_owned();
    dense.flush().await;
    c.goto(&format!("{base}/ui/memories/helper/alice"))
        .await
        .unwrap();
    type_into(c, "#q", PARAPHRASE).await;
    css(c, "#search-button").await.click().await.unwrap();
    let first = css(c, "#hits > li.hit").await;
    if first.attr("data-id").await.unwrap().as_deref() != Some(id.as_str()) {
        return Err(format!(
            "the paraphrase did not rank the memory first: {}",
            first.text().await.unwrap()
        ));
    }
    let dense_cell = first
        .find(Locator::Css("td.dense"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let score = first
        .find(Locator::Css("td.score"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let why = first
        .find(Locator::Css(".why"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    if dense_cell.trim() == "—"
        || !dense_cell.contains("#1")
        || score.trim().parse::<f64>().is_err()
    {
        return Err(format!(
            "no dense score breakdown: dense `{dense_cell}`, score `{score}`"
        ));
    }
    assert!(why.contains("meaning"), "{why}");
    shot(c, "04-search-breakdown").await;

    // A narrow window: nothing overflows sideways.
    c.set_window_size(400, 900).await.unwrap();
    let overflow = c
        .execute(
            "return document.documentElement.scrollWidth - window.innerWidth;",
            vec![],
        )
        .await
        .unwrap();
    assert!(
        overflow.as_f64().unwrap_or(1.0) <= 0.0,
        "horizontal overflow {overflow} at 400 px"
    );
    shot(c, "05-narrow").await;
    c.set_window_size(1280, 900).await.unwrap();

    memory_switch_is_honoured(c, base, state).await;

    // Delete it.
    // The turns that recalled it are in its usage log.
    let detail = format!("{base}/ui/memories/helper/alice/{id}");
    let mut uses = 0;
    for _ in 0..50 {
        c.goto(&detail).await.unwrap();
        uses = c
            .find_all(Locator::Css("#usage tbody tr"))
            .await
            .unwrap()
            .len();
        if uses >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    if uses < 2 {
        return Err(format!(
            "{uses} rows in the usage log after two turns that recalled the memory"
        ));
    }
    shot(c, "06-memory").await;
    css(c, "#delete-button").await.click().await.unwrap();
    assert!(text(c, ".notice").await.contains("deleted"));
    let left = c
        .find_all(Locator::Css(&format!("#memories li[data-id='{id}']")))
        .await
        .unwrap();
    assert!(left.is_empty(), "the deleted memory is still listed");
    if state
        .memory
        .scoped(MemoryScope::new("helper", "alice").unwrap())
        .get(id.parse().unwrap())
        .await
        .unwrap()
        .is_some()
    {
        return Err("the memory is still stored".into());
    }

    hostile(c, base, trap).await
}

/// A memory made of markup renders as text: no dialog, no request, no element.
async fn hostile(c: &Client, base: &str, trap: &str) -> Result<(), String> {
    let hostile = format!(
        "<script>alert('script'); fetch('{trap}/script')</script> \"><img src={trap}/img onerror=alert('img')> <a href=\"javascript:alert('link')\">open</a>"
    );
    c.goto(&format!("{base}/ui/memories/helper/alice"))
        .await
        .unwrap();
    type_into(c, "#new-content", &hostile).await;
    type_into(c, "#new-name", "<b onmouseover=alert(1)>title</b>").await;
    css(c, "#add-button").await.click().await.unwrap();
    for page in ["detail", "list", "search"] {
        match page {
            "list" => c
                .goto(&format!("{base}/ui/memories/helper/alice"))
                .await
                .unwrap(),
            "search" => c
                .goto(&format!("{base}/ui/memories/helper/alice?q=alert"))
                .await
                .unwrap(),
            _ => {}
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        if dialog_open(c).await {
            return Err(format!("a dialog opened on the {page} page"));
        }
        let counts = c
            .execute(
                "const m = document.getElementById('main'); return [m.querySelectorAll('img').length, m.querySelectorAll('script').length, document.querySelectorAll('a[href^=\"javascript:\"]').length, m.querySelectorAll('b').length, m.textContent.includes(\"<script>alert('script')\")];",
                vec![],
            )
            .await
            .unwrap();
        if counts != json!([0, 0, 0, 0, true]) {
            return Err(format!(
                "the hostile memory became markup on the {page} page: {counts}"
            ));
        }
        if page == "detail" {
            shot(c, "07-hostile-memory").await;
        }
    }
    Ok(())
}
