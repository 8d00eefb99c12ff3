//! The parts built on a store — the knowledge wiki and conversation history —
//! working over a backend (what `Storage::store()` promises).

use std::sync::Arc;

use agcore_types::ChatMessage;

use super::{CheckResult, ensure};
use agcore_memory::{
    ConversationMemory, ConversationMemoryConfig, KnowledgePage, KnowledgeStore, MemoryStore,
};

/// On one fresh store: wiki pages are added, found (English and Chinese),
/// updated and reopened with their index; two conversation sessions keep
/// their messages apart and in order, and a sliding window keeps the last
/// turns.
///
/// # Errors
/// [`CheckFailure`](super::CheckFailure) describing the first broken expectation.
pub async fn check_wiki_and_conversation(store: Arc<dyn MemoryStore>) -> CheckResult {
    let wiki = KnowledgeStore::open(Arc::clone(&store)).await?;
    wiki.add_page(KnowledgePage::new(
        "deploy",
        "Deployment",
        "How the service is deployed",
        "We deploy with blue-green releases behind the load balancer. 部署使用蓝绿发布。",
    ))
    .await?;
    wiki.add_page(KnowledgePage::new(
        "billing",
        "Billing",
        "Invoices",
        "Invoices are sent on the first day of the month.",
    ))
    .await?;
    let hits = wiki.search_scored("blue-green deploy", 5).await?;
    ensure(hits.first().is_some_and(|h| h.page.id == "deploy"), || {
        format!(
            "wiki search for `blue-green deploy` gave {:?}",
            hits.iter().map(|h| &h.page.id).collect::<Vec<_>>()
        )
    })?;
    let hits = wiki.search_scored("蓝绿发布", 5).await?;
    ensure(hits.first().is_some_and(|h| h.page.id == "deploy"), || {
        "wiki search in Chinese missed the page".to_owned()
    })?;
    let mut page = wiki
        .get_page("billing")
        .await?
        .ok_or_else(|| super::CheckFailure("the billing page is gone".into()))?;
    page.content = "Invoices are sent on the last day of the month.".into();
    wiki.update_page(page).await?;
    let reopened = KnowledgeStore::open(Arc::clone(&store)).await?;
    let index = reopened.get_index().await?;
    ensure(index.len() == 2, || {
        format!("reopened wiki index has {} pages", index.len())
    })?;
    let billing = reopened.get_page("billing").await?;
    ensure(
        billing.is_some_and(|p| p.content.contains("last day")),
        || "the wiki update was not kept".to_owned(),
    )?;

    let alice = ConversationMemory::new(
        Arc::clone(&store),
        "alice",
        ConversationMemoryConfig::full(),
    )?;
    let bob = ConversationMemory::new(
        Arc::clone(&store),
        "bob",
        ConversationMemoryConfig::sliding_window(2),
    )?;
    for turn in 0..3 {
        alice
            .add_message(ChatMessage::user(format!("alice {turn}")))
            .await?;
        alice
            .add_message(ChatMessage::assistant(format!("reply {turn}")))
            .await?;
        bob.add_message(ChatMessage::user(format!("bob {turn}")))
            .await?;
        bob.add_message(ChatMessage::assistant(format!("answer {turn}")))
            .await?;
    }
    let texts: Vec<String> = alice
        .get_history()
        .await?
        .iter()
        .map(ChatMessage::text)
        .collect();
    ensure(
        texts
            == [
                "alice 0", "reply 0", "alice 1", "reply 1", "alice 2", "reply 2",
            ],
        || format!("alice's history is {texts:?}"),
    )?;
    let texts: Vec<String> = bob
        .get_history()
        .await?
        .iter()
        .map(ChatMessage::text)
        .collect();
    ensure(texts == ["bob 1", "answer 1", "bob 2", "answer 2"], || {
        format!("a 2-turn window of bob's history is {texts:?}")
    })
}
