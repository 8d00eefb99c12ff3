//! `Duration` as a number of seconds (integer or fraction) in configuration files.

use std::time::Duration;

use serde::{Deserialize, Deserializer, Serializer, de::Error as _};

pub(super) fn serialize<S: Serializer>(value: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_f64(value.as_secs_f64())
}

pub(super) fn deserialize<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Duration, D::Error> {
    let secs = f64::deserialize(deserializer)?;
    Duration::try_from_secs_f64(secs)
        .map_err(|e| D::Error::custom(format!("invalid number of seconds {secs}: {e}")))
}
