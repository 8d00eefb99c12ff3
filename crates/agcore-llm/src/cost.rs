//! Token usage and cost accounting per model.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use agcore_types::Usage;
use serde::{Deserialize, Serialize};

/// Prices of one model in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ModelPrice {
    /// USD per 1 000 000 uncached prompt tokens.
    pub input_per_million: f64,
    /// USD per 1 000 000 prompt tokens served from the provider's prompt
    /// cache; `None` bills them at `input_per_million`.
    #[serde(default)]
    pub cached_input_per_million: Option<f64>,
    /// USD per 1 000 000 completion tokens (reasoning tokens included, as
    /// OpenAI counts them inside `completion_tokens`).
    pub output_per_million: f64,
}

impl ModelPrice {
    /// A price without a cached-input discount.
    pub fn new(input_per_million: f64, output_per_million: f64) -> Self {
        Self {
            input_per_million,
            cached_input_per_million: None,
            output_per_million,
        }
    }

    /// Sets the price of cached prompt tokens (USD per million).
    pub fn with_cached_input(mut self, cached_input_per_million: f64) -> Self {
        self.cached_input_per_million = Some(cached_input_per_million);
        self
    }

    /// The cost of `usage` in USD:
    /// `(prompt - cached) × input + cached × cached_input + completion × output`,
    /// all divided by 1 000 000.
    pub fn cost_usd(&self, usage: &Usage) -> f64 {
        let cached = usage.cached_tokens().min(usage.prompt_tokens);
        let uncached = usage.prompt_tokens - cached;
        let cached_price = self
            .cached_input_per_million
            .unwrap_or(self.input_per_million);
        (uncached as f64 * self.input_per_million
            + cached as f64 * cached_price
            + usage.completion_tokens as f64 * self.output_per_million)
            / 1_000_000.0
    }
}

/// Prices per model name (deserializes from a JSON/TOML map
/// `{"gpt-4o": {"input_per_million": 2.5, "output_per_million": 10.0}}`).
///
/// Lookup is by exact name first, then by the longest configured name that is
/// a prefix of the model followed by `-` (so `gpt-4o` also prices the dated
/// snapshot `gpt-4o-2024-08-06`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable {
    prices: HashMap<String, ModelPrice>,
}

impl PriceTable {
    /// An empty table (every cost unknown).
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds or replaces the price of `model`.
    pub fn with_price(mut self, model: impl Into<String>, price: ModelPrice) -> Self {
        self.insert(model, price);
        self
    }

    /// Adds or replaces the price of `model`.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        self.prices.insert(model.into(), price);
    }

    /// The price of `model`, if configured (see the type docs for matching).
    pub fn get(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(price) = self.prices.get(model) {
            return Some(price);
        }
        self.prices
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, price)| price)
    }
}

/// Usage of one model as recorded by a [`CostTracker`].
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ModelUsage {
    /// Summed token usage.
    pub usage: Usage,
    /// Number of responses recorded.
    pub requests: u64,
}

/// Token usage per model and in total, and its cost from a [`PriceTable`].
///
/// Tokens are always counted; a model without a price makes its cost (and
/// the total cost) unknown (`None`), while [`Self::known_cost_usd`] still sums
/// the priced ones.
#[derive(Debug, Clone, Default)]
pub struct CostTracker {
    prices: Arc<PriceTable>,
    per_model: BTreeMap<String, ModelUsage>,
    total: Usage,
    requests: u64,
}

impl CostTracker {
    /// A tracker pricing with `prices`.
    pub fn new(prices: PriceTable) -> Self {
        Self::with_shared_prices(Arc::new(prices))
    }

    /// A tracker pricing with a shared table.
    pub fn with_shared_prices(prices: Arc<PriceTable>) -> Self {
        Self {
            prices,
            ..Self::default()
        }
    }

    /// The price table.
    pub fn prices(&self) -> &PriceTable {
        &self.prices
    }

    /// Records one response's `usage` for `model`.
    pub fn record(&mut self, model: &str, usage: &Usage) {
        let entry = self.per_model.entry(model.to_owned()).or_default();
        entry.usage.accumulate(usage);
        entry.requests += 1;
        self.total.accumulate(usage);
        self.requests += 1;
    }

    /// Adds everything `other` recorded (prices stay this tracker's).
    pub fn merge(&mut self, other: &CostTracker) {
        for (model, theirs) in &other.per_model {
            let entry = self.per_model.entry(model.clone()).or_default();
            entry.usage.accumulate(&theirs.usage);
            entry.requests += theirs.requests;
        }
        self.total.accumulate(&other.total);
        self.requests += other.requests;
    }

    /// Usage summed over all models.
    pub fn total_usage(&self) -> &Usage {
        &self.total
    }

    /// Number of responses recorded.
    pub fn requests(&self) -> u64 {
        self.requests
    }

    /// Usage of one model, if any was recorded.
    pub fn model_usage(&self, model: &str) -> Option<&ModelUsage> {
        self.per_model.get(model)
    }

    /// Models with recorded usage, by name.
    pub fn models(&self) -> impl Iterator<Item = (&str, &ModelUsage)> {
        self.per_model.iter().map(|(k, v)| (k.as_str(), v))
    }

    /// Cost of `model`'s usage in USD; `None` when unpriced or not recorded.
    pub fn model_cost_usd(&self, model: &str) -> Option<f64> {
        let usage = self.per_model.get(model)?;
        self.prices.get(model).map(|p| p.cost_usd(&usage.usage))
    }

    /// Total cost in USD; `None` when any recorded model has no price.
    pub fn total_cost_usd(&self) -> Option<f64> {
        self.per_model
            .iter()
            .map(|(model, u)| self.prices.get(model).map(|p| p.cost_usd(&u.usage)))
            .sum()
    }

    /// Summed cost in USD of the models that have a price.
    pub fn known_cost_usd(&self) -> f64 {
        self.per_model
            .iter()
            .filter_map(|(model, u)| self.prices.get(model).map(|p| p.cost_usd(&u.usage)))
            .sum()
    }

    /// Recorded models without a price.
    pub fn unpriced_models(&self) -> Vec<&str> {
        self.per_model
            .keys()
            .filter(|m| self.prices.get(m).is_none())
            .map(String::as_str)
            .collect()
    }
}

impl std::ops::AddAssign<&CostTracker> for CostTracker {
    fn add_assign(&mut self, other: &CostTracker) {
        self.merge(other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_lookup_prefers_longest() {
        let table = PriceTable::new()
            .with_price("gpt-4o", ModelPrice::new(2.5, 10.0))
            .with_price("gpt-4o-mini", ModelPrice::new(0.15, 0.6));
        assert_eq!(
            table.get("gpt-4o-2024-08-06").unwrap().input_per_million,
            2.5
        );
        assert_eq!(
            table
                .get("gpt-4o-mini-2024-07-18")
                .unwrap()
                .input_per_million,
            0.15
        );
        assert!(table.get("gpt-4oo").is_none());
    }
}
