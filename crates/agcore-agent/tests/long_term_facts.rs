//! The fact parser never panics and recovers what it can (proptest), and the
//! extractor prompt carries the dialogue and the known memories.
#![cfg(test)]

use agcore_agent::turn_memory::{extractor_prompt, parse_facts};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{DialogueTurn, MemoryType};
use proptest::prelude::*;

fn fact_json(content: &str, ty: &str, confidence: f64) -> String {
    serde_json::json!({"content": content, "type": ty, "tags": ["t"], "confidence": confidence, "replace": null}).to_string()
}

proptest! {
    #[test]
    fn never_panics_on_any_text(text in any::<String>()) {
        let _ = parse_facts(&text);
    }

    #[test]
    fn never_panics_on_json_like_text(text in r#"[\[\]{}",:a-z0-9 `\n\\.-]{0,200}"#) {
        if let Err(err) = parse_facts(&text) {
            prop_assert!(matches!(err, MemoryError::Serialization(_)));
        }
    }

    #[test]
    fn well_formed_facts_round_trip(
        facts in proptest::collection::vec(("[a-zA-Z\u{4e00}-\u{4e2f} ]{1,40}", 0usize..4, 0.0f64..=1.0), 0..8),
        fenced in any::<bool>(),
        prose in "[a-zA-Z ,.]{0,30}",
    ) {
        let facts: Vec<_> = facts.into_iter().filter(|(c, _, _)| !c.trim().is_empty()).collect();
        let items: Vec<String> = facts.iter().map(|(c, t, conf)| fact_json(c, MemoryType::ALL[*t].as_str(), *conf)).collect();
        let json = format!("{{\"facts\": [{}]}}", items.join(","));
        let reply = if fenced { format!("{prose}\n```json\n{json}\n```\n") } else { format!("{json}\n{prose}") };
        let parsed = parse_facts(&reply).unwrap();
        prop_assert!(!parsed.truncated);
        prop_assert_eq!(parsed.facts.len(), facts.len());
        for (got, (c, t, conf)) in parsed.facts.iter().zip(&facts) {
            prop_assert_eq!(&got.content, c.trim());
            prop_assert_eq!(got.memory_type, MemoryType::ALL[*t]);
            prop_assert!((got.confidence - conf).abs() < 1e-9);
        }
    }

    #[test]
    fn truncation_keeps_a_prefix_of_the_facts(n in 1usize..6, cut in 0usize..400) {
        let items: Vec<String> = (0..n).map(|i| fact_json(&format!("fact {i}"), "user", 0.9)).collect();
        let json = format!("[{}]", items.join(", "));
        let cut = cut.min(json.len());
        if let Ok(parsed) = parse_facts(&json[..cut]) {
            prop_assert!(parsed.facts.len() <= n);
            for (i, f) in parsed.facts.iter().enumerate() {
                prop_assert_eq!(&f.content, &format!("fact {i}"));
            }
        }
    }
}

#[test]
fn prompt_lists_turns_and_known_memories() {
    let turns = vec![DialogueTurn {
        id: 1,
        session_id: "s".into(),
        user_query: "我搬到慕尼黑了".into(),
        assistant_response: "好的".into(),
        created_at: chrono::Utc::now(),
    }];
    let prompt = extractor_prompt(&turns, &[], 7);
    assert!(prompt.system.contains("At most 7 facts"));
    assert!(prompt.system.contains("\"replace\""));
    assert!(
        !prompt.system.contains("我搬到慕尼黑了"),
        "data stays out of the system message"
    );
    let data: serde_json::Value = serde_json::from_str(&prompt.data).unwrap();
    assert_eq!(data["dialogue"][0]["user"], "我搬到慕尼黑了");
    assert_eq!(data["known_memories"], serde_json::json!([]));
    let messages = prompt.messages();
    assert_eq!(messages[1].text(), prompt.data);
}
