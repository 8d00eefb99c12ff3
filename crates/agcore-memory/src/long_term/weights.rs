//! Weight rules: reinforcement on use, decay when unused and with age, and
//! the archive / core thresholds (see `docs/memory.md`, *Weights, usage and archiving*).
//!
//! - Referenced use: `w' = min(max, w + reference_boost)`.
//! - Unreferenced use (injected but not used in the reply):
//!   `w' = max(min, w · unreferenced_decay)`.
//! - Age (each maintenance run): exponential forgetting with a half-life,
//!   `w' = max(min, w · 0.5^(Δt / half_life))` where Δt is the time since the
//!   weight was last set (Ebbinghaus, 1885, "Über das Gedächtnis", as the
//!   exponential forgetting curve); `half_life_days = 0` disables it.
//! - Entries whose weight falls below `archive_threshold` are archived by
//!   maintenance; entries at or above `core_threshold` are "core" memories.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::MemoryError;

/// Seconds per day, for the age decay.
const SECS_PER_DAY: f64 = 86_400.0;

/// The smallest weight loss maintenance writes (`1e-6`): a smaller age decay
/// is left for a later run, which applies it in full from the unchanged
/// `weight_updated_at`.
pub const MIN_DECAY: f64 = 1e-6;

/// The weight formulas' parameters (`[memory.long_term.weights]` in TOML).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
#[non_exhaustive]
pub struct WeightRules {
    /// Weight of a new entry (default 1.0).
    pub initial: f64,
    /// Lower bound of every weight (default 0.0).
    pub min: f64,
    /// Upper bound of every weight (default 10.0).
    pub max: f64,
    /// Added when a reply referenced the memory (default 0.5).
    pub reference_boost: f64,
    /// Factor applied when the memory was used but not referenced, in `[0, 1]` (default 0.9).
    pub unreferenced_decay: f64,
    /// Half-life of the age decay, in days (default 30; 0 disables age decay).
    pub half_life_days: f64,
    /// Maintenance archives entries whose weight is below this (default 0.3).
    /// In TOML this is `memory.long_term.archive_threshold`, not a key of this table.
    #[serde(skip)]
    pub archive_threshold: f64,
    /// Entries at or above this weight are core memories (default 2.0).
    pub core_threshold: f64,
}

impl Default for WeightRules {
    fn default() -> Self {
        Self {
            initial: 1.0,
            min: 0.0,
            max: 10.0,
            reference_boost: 0.5,
            unreferenced_decay: 0.9,
            half_life_days: 30.0,
            archive_threshold: 0.3,
            core_threshold: 2.0,
        }
    }
}

impl WeightRules {
    /// Checks every value is finite, `min ≤ initial ≤ max`, the boost and
    /// half-life are ≥ 0 and the decay factor is in `[0, 1]`.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the bad value.
    pub fn validate(&self) -> Result<(), MemoryError> {
        let values = [
            ("initial", self.initial),
            ("min", self.min),
            ("max", self.max),
            ("reference_boost", self.reference_boost),
            ("unreferenced_decay", self.unreferenced_decay),
            ("half_life_days", self.half_life_days),
            ("archive_threshold", self.archive_threshold),
            ("core_threshold", self.core_threshold),
        ];
        if let Some((name, v)) = values.iter().find(|(_, v)| !v.is_finite()) {
            return Err(invalid(format!("weights.{name} must be finite, got {v}")));
        }
        if !(self.min <= self.initial && self.initial <= self.max) {
            return Err(invalid(format!(
                "weights: need min ≤ initial ≤ max, got {} / {} / {}",
                self.min, self.initial, self.max
            )));
        }
        if self.reference_boost < 0.0 || self.half_life_days < 0.0 {
            return Err(invalid(
                "weights.reference_boost and weights.half_life_days must be ≥ 0".into(),
            ));
        }
        if !(0.0..=1.0).contains(&self.unreferenced_decay) {
            return Err(invalid(format!(
                "weights.unreferenced_decay must be in [0, 1], got {}",
                self.unreferenced_decay
            )));
        }
        Ok(())
    }

    /// `w` clamped to `[min, max]` (NaN becomes `min`).
    pub fn clamp(&self, w: f64) -> f64 {
        if w.is_nan() {
            self.min
        } else {
            w.clamp(self.min, self.max)
        }
    }

    /// The weight after one use: boosted when `referenced`, decayed otherwise.
    pub fn after_use(&self, w: f64, referenced: bool) -> f64 {
        if referenced {
            self.clamp(w + self.reference_boost)
        } else {
            self.clamp(w * self.unreferenced_decay)
        }
    }

    /// The weight after ageing from `since` to `now` (no change when
    /// `now ≤ since` or the half-life is 0).
    #[allow(clippy::cast_precision_loss)]
    pub fn after_age(&self, w: f64, since: DateTime<Utc>, now: DateTime<Utc>) -> f64 {
        if self.half_life_days <= 0.0 {
            return self.clamp(w);
        }
        let secs = (now - since).num_milliseconds() as f64 / 1000.0;
        if secs <= 0.0 {
            return self.clamp(w);
        }
        let days = secs / SECS_PER_DAY;
        self.clamp(w * 0.5_f64.powf(days / self.half_life_days))
    }
}

fn invalid(message: String) -> MemoryError {
    MemoryError::InvalidInput(message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    #[test]
    fn use_boosts_and_decays_within_bounds() {
        let r = WeightRules::default();
        assert!((r.after_use(1.0, true) - 1.5).abs() < 1e-12);
        assert!((r.after_use(1.0, false) - 0.9).abs() < 1e-12);
        assert_eq!(r.after_use(9.9, true), 10.0);
        assert_eq!(r.after_use(0.0, false), 0.0);
    }

    #[test]
    fn age_halves_per_half_life() {
        let r = WeightRules::default();
        let t0 = Utc::now();
        let w = r.after_age(2.0, t0, t0 + Duration::days(30));
        assert!((w - 1.0).abs() < 1e-9, "{w}");
        let w = r.after_age(2.0, t0, t0 + Duration::days(60));
        assert!((w - 0.5).abs() < 1e-9, "{w}");
        assert_eq!(r.after_age(2.0, t0, t0 - Duration::days(1)), 2.0);
        let off = WeightRules {
            half_life_days: 0.0,
            ..r
        };
        assert_eq!(off.after_age(2.0, t0, t0 + Duration::days(999)), 2.0);
    }

    #[test]
    fn validation_catches_bad_rules() {
        assert!(WeightRules::default().validate().is_ok());
        let bad = WeightRules {
            unreferenced_decay: 1.5,
            ..WeightRules::default()
        };
        assert!(bad.validate().is_err());
        let bad = WeightRules {
            initial: 20.0,
            ..WeightRules::default()
        };
        assert!(bad.validate().is_err());
        let bad = WeightRules {
            max: f64::INFINITY,
            ..WeightRules::default()
        };
        assert!(bad.validate().is_err());
    }
}
