//! `CostTracker` and `PriceTable` maths.
#![cfg(test)]

use agcore_llm::types::{PromptTokensDetails, Usage};
use agcore_llm::{CostTracker, ModelPrice, PriceTable};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn cached_usage(prompt: u64, cached: u64, completion: u64) -> Usage {
    let mut usage = Usage::new(prompt, completion);
    usage.prompt_tokens_details = Some(PromptTokensDetails {
        cached_tokens: Some(cached),
        ..PromptTokensDetails::default()
    });
    usage
}

fn table() -> PriceTable {
    PriceTable::new()
        .with_price(
            "gpt-4o",
            ModelPrice::new(2.50, 10.00).with_cached_input(1.25),
        )
        .with_price("deepseek-chat", ModelPrice::new(0.27, 1.10))
}

#[test]
fn cost_per_model_and_total() {
    let mut tracker = CostTracker::new(table());
    tracker.record("gpt-4o", &cached_usage(10_000, 4_000, 1_000));
    tracker.record("gpt-4o-2024-08-06", &Usage::new(2_000, 500));
    tracker.record("deepseek-chat", &Usage::new(1_000_000, 100_000));

    // 6000 uncached × 2.5 + 4000 cached × 1.25 + 1000 × 10, per million.
    let gpt = (6_000.0 * 2.5 + 4_000.0 * 1.25 + 1_000.0 * 10.0) / 1e6;
    assert!(close(tracker.model_cost_usd("gpt-4o").unwrap(), gpt));
    let dated = (2_000.0 * 2.5 + 500.0 * 10.0) / 1e6;
    assert!(close(
        tracker.model_cost_usd("gpt-4o-2024-08-06").unwrap(),
        dated
    ));
    let deepseek = 0.27 + 0.11;
    assert!(close(
        tracker.model_cost_usd("deepseek-chat").unwrap(),
        deepseek
    ));
    assert!(close(
        tracker.total_cost_usd().unwrap(),
        gpt + dated + deepseek
    ));

    let total = tracker.total_usage();
    assert_eq!(total.prompt_tokens, 1_012_000);
    assert_eq!(total.completion_tokens, 101_500);
    assert_eq!(total.total_tokens, 1_113_500);
    assert_eq!(total.cached_tokens(), 4_000);
    assert_eq!(tracker.requests(), 3);
    assert_eq!(tracker.model_usage("gpt-4o").unwrap().requests, 1);
}

#[test]
fn unknown_model_makes_cost_unknown_but_counts_tokens() {
    let mut tracker = CostTracker::new(table());
    tracker.record("deepseek-chat", &Usage::new(1_000_000, 0));
    tracker.record("my-local-llama", &Usage::new(500, 50));
    assert_eq!(tracker.total_cost_usd(), None);
    assert_eq!(tracker.model_cost_usd("my-local-llama"), None);
    assert!(close(tracker.known_cost_usd(), 0.27));
    assert_eq!(tracker.unpriced_models(), vec!["my-local-llama"]);
    assert_eq!(tracker.total_usage().total_tokens, 1_000_550);
    assert_eq!(
        tracker
            .model_usage("my-local-llama")
            .unwrap()
            .usage
            .prompt_tokens,
        500
    );
}

#[test]
fn merge_adds_usage() {
    let mut a = CostTracker::new(table());
    a.record("gpt-4o", &Usage::new(100, 10));
    let mut b = CostTracker::new(PriceTable::new());
    b.record("gpt-4o", &Usage::new(200, 20));
    b.record("deepseek-chat", &Usage::new(300, 30));
    a += &b;
    assert_eq!(a.requests(), 3);
    assert_eq!(a.model_usage("gpt-4o").unwrap().usage.prompt_tokens, 300);
    assert_eq!(a.model_usage("gpt-4o").unwrap().requests, 2);
    assert_eq!(a.total_usage().total_tokens, 660);
    // Prices stay the receiving tracker's.
    let expected = (300.0 * 2.5 + 30.0 * 10.0 + 300.0 * 0.27 + 30.0 * 1.10) / 1e6;
    assert!(close(a.total_cost_usd().unwrap(), expected));
    let models: Vec<&str> = a.models().map(|(m, _)| m).collect();
    assert_eq!(models, vec!["deepseek-chat", "gpt-4o"]);
}

#[test]
fn price_table_from_json() {
    let table: PriceTable = serde_json::from_str(
        r#"{"gpt-4o-mini": {"input_per_million": 0.15, "cached_input_per_million": 0.075, "output_per_million": 0.6}}"#,
    )
    .unwrap();
    let price = table.get("gpt-4o-mini").unwrap();
    assert!(close(
        price.cost_usd(&cached_usage(1_000_000, 1_000_000, 1_000_000)),
        0.675
    ));
    assert!(table.get("gpt-4o").is_none());
}
