//! A generated campaign through the `memory_save` / `memory_recall` tools:
//! the model of one user's session asks, 10,000 times, for another user's
//! secrets by query, by entry id (update, delete) and with the other user's
//! id in the arguments. Users are named by hostile but valid ids (case,
//! Unicode normalisation, look-alikes, separators, SQL). No tool result may
//! carry another user's secret, no call may change or delete another user's
//! entry, and every user ends holding exactly their own entries.
#![cfg(test)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::sync::Arc;

use agcore_agent::{AgentBuilder, AgentConfig, AgentSession, LongTermOptions, SimpleAgent};
use agcore_llm::{MockProvider, MockResponse};
use agcore_memory::long_term::{InMemoryLongTerm, ListRequest, LongTermMemory};
use agcore_memory_sqlite::SqliteLongTerm;
use agcore_types::{ChatMessage, ChatResponse, FinishReason, Role, ToolCall};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde_json::json;

const ATTEMPTS: usize = 10_000;
/// Turns per session before the user starts a new one (histories stay short).
const TURNS_PER_SESSION: usize = 40;

const USERS: &[&str] = &[
    "alice",
    "Alice",
    "ALICE",
    "e\u{301}mile",
    "\u{e9}mile",
    "李雷",
    "a:b",
    "a/b",
    "bob",
    "'; DROP TABLE memories; --",
    "ａｌｉｃｅ",
    "carol",
];

fn secret(user: usize, k: usize) -> String {
    format!("vault code zq{user:02}x{k} for user {user} 密码{user}")
}

struct Harness {
    provider: Arc<MockProvider>,
    memory: LongTermMemory,
}

impl Harness {
    fn session(&self, user: usize) -> AgentSession {
        let bundle = AgentBuilder::new()
            .provider(self.provider.clone())
            .config(AgentConfig::new("m"))
            .long_term_memory(
                self.memory.clone(),
                LongTermOptions::new().extraction(false),
            )
            .build()
            .unwrap();
        AgentSession::new(Arc::new(SimpleAgent::new("assistant")), bundle)
            .with_user_id(USERS[user])
            .unwrap()
    }

    /// One turn in which the model calls `tool` with `args`; the tool's result.
    async fn call(
        &self,
        session: &mut AgentSession,
        tool: &str,
        args: &serde_json::Value,
    ) -> String {
        let call = ToolCall::new(self.provider.call_id(), tool, args.to_string());
        for message in [
            ChatMessage::assistant_tool_calls(vec![call]),
            ChatMessage::assistant("done"),
        ] {
            let reason = if message.tool_calls.is_empty() {
                FinishReason::Stop
            } else {
                FinishReason::ToolCalls
            };
            self.provider
                .enqueue(MockResponse::Response(ChatResponse::from_message(
                    "m", message, reason,
                )));
        }
        session.submit_turn("go").await.unwrap();
        session
            .history()
            .iter()
            .rev()
            .find(|m| m.role == Role::Tool)
            .map(ChatMessage::text)
            .unwrap()
    }
}

async fn campaign(memory: LongTermMemory) {
    let h = Harness {
        provider: Arc::new(MockProvider::new()),
        memory,
    };
    // Every user saves two secrets through the tool; their ids are noted.
    let mut ids = vec![Vec::new(); USERS.len()];
    for (user, user_ids) in ids.iter_mut().enumerate() {
        let mut session = h.session(user);
        for k in 0..2 {
            let args = json!({"action": "create", "name": format!("vault {k}"), "type": "user", "content": secret(user, k)});
            let result: serde_json::Value =
                serde_json::from_str(&h.call(&mut session, "memory_save", &args).await).unwrap();
            assert_eq!(result["status"], "created", "{result}");
            user_ids.push(result["id"].as_i64().unwrap());
        }
    }
    let mut rng = StdRng::seed_from_u64(0x7001);
    let mut sessions: Vec<Option<(AgentSession, usize)>> = (0..USERS.len()).map(|_| None).collect();
    let mut leaks = Vec::new();
    for attempt in 0..ATTEMPTS {
        let attacker = rng.random_range(0..USERS.len());
        let victim = (attacker + rng.random_range(1..USERS.len())) % USERS.len();
        let k = rng.random_range(0..2);
        let (target_id, text) = (ids[victim][k], secret(victim, k));
        let (tool, args) = match rng.random_range(0..5_u32) {
            0 => (
                "memory_recall",
                json!({"query": text, "user_id": USERS[victim], "agent_name": "assistant"}),
            ),
            1 => (
                "memory_recall",
                json!({"query": format!("zq{victim:02}x{k}"), "type": "user", "limit": 50}),
            ),
            2 => (
                "memory_save",
                json!({"action": "update", "id": target_id, "name": "pwned", "type": "user",
                                        "content": "overwritten by another user", "user_id": USERS[victim]}),
            ),
            3 => (
                "memory_save",
                json!({"action": "delete", "id": target_id, "name": "x", "type": "user"}),
            ),
            _ => (
                "memory_save",
                json!({"action": "create", "name": "note", "type": "project",
                                        "content": format!("note {attempt} of {attacker}"), "user_id": USERS[victim]}),
            ),
        };
        let slot = &mut sessions[attacker];
        if slot
            .as_ref()
            .is_none_or(|(_, turns)| *turns >= TURNS_PER_SESSION)
        {
            *slot = Some((h.session(attacker), 0));
        }
        let (session, turns) = slot.as_mut().unwrap();
        *turns += 1;
        let result = h.call(session, tool, &args).await;
        let foreign = (0..USERS.len())
            .filter(|u| *u != attacker)
            .any(|u| (0..2).any(|k| result.contains(&format!("zq{u:02}x{k}"))));
        let changed =
            result.contains("\"status\":\"updated\"") || result.contains("\"status\":\"deleted\"");
        if foreign || changed {
            leaks.push(format!(
                "attempt {attempt}: {} → {tool} {args}: {result}",
                USERS[attacker]
            ));
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks, first: {}",
        leaks.len(),
        leaks[0]
    );
    // Every user holds exactly their two secrets, unchanged, plus their own notes.
    for (user, name) in USERS.iter().enumerate() {
        let entries = h
            .memory
            .scope("assistant", *name)
            .unwrap()
            .list(&ListRequest::all())
            .await
            .unwrap();
        for (k, id) in ids[user].iter().enumerate() {
            let entry = entries
                .iter()
                .find(|e| e.id == *id)
                .unwrap_or_else(|| panic!("{name} lost secret {k}"));
            assert_eq!(entry.content, secret(user, k));
        }
        for entry in entries.iter().filter(|e| !ids[user].contains(&e.id)) {
            assert!(
                entry.content.ends_with(&format!(" of {user}")),
                "{name} holds {}",
                entry.content
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tool_calls_leak_nothing_in_memory() {
    campaign(LongTermMemory::new(InMemoryLongTerm::new())).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_tool_calls_leak_nothing_in_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    campaign(LongTermMemory::new(
        SqliteLongTerm::open(dir.path().join("m.db")).await.unwrap(),
    ))
    .await;
}
