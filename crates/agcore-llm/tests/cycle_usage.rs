//! `LlmCycle` usage and cost accumulate over every request of the tool loop.
#![cfg(test)]

use agcore_llm::types::Usage;
use agcore_llm::{CycleConfig, LlmCycle, MockProvider, ModelPrice, PriceTable};

#[tokio::test]
async fn usage_and_cost_accumulate_over_the_loop() {
    let mock = MockProvider::new().with_model("gpt-4o-mini-2024-07-18");
    let mut call = mock
        .push_text_with_usage("first", Usage::new(1_000, 200))
        .push_text_with_usage("second", Usage::new(3_000, 800));
    call = call.with_name("priced");
    let prices = PriceTable::new().with_price("gpt-4o-mini", ModelPrice::new(0.15, 0.60));
    let mut cycle = LlmCycle::new(
        Box::new(call),
        CycleConfig::new("gpt-4o-mini").with_prices(prices),
    );
    cycle.submit("one").await.unwrap();
    cycle.submit("two").await.unwrap();
    assert_eq!(cycle.usage().prompt_tokens, 4_000);
    assert_eq!(cycle.usage().completion_tokens, 1_000);
    assert_eq!(cycle.usage().total_tokens, 5_000);
    assert_eq!(cycle.cost().requests(), 2);
    let cost = cycle.cost().total_cost_usd().unwrap();
    let expected = (4_000.0 * 0.15 + 1_000.0 * 0.60) / 1_000_000.0;
    assert!((cost - expected).abs() < 1e-12, "{cost} != {expected}");
    assert!(cycle.cost().model_usage("gpt-4o-mini-2024-07-18").is_some());
}
