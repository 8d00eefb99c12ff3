//! Reading typed columns out of result rows.

use chrono::{DateTime, TimeZone, Utc};
use mysql_async::Row;
use mysql_async::prelude::FromValue;

use crate::error::{Result, storage};

/// Column `i` of `row` as `T`.
///
/// # Errors
/// A storage error when the column is missing or of another type (a row
/// this library did not write).
pub(crate) fn take<T: FromValue>(row: &mut Row, i: usize) -> Result<T> {
    match row.take_opt::<T, usize>(i) {
        Some(value) => Ok(value?),
        None => Err(storage(format!("mysql: result has no column {i}"))),
    }
}

/// Column `i` as UTF-8 text stored as bytes.
///
/// # Errors
/// A storage error when the bytes are not UTF-8.
pub(crate) fn text(row: &mut Row, i: usize) -> Result<String> {
    let bytes: Vec<u8> = take(row, i)?;
    String::from_utf8(bytes).map_err(|_| storage("mysql: stored text is not UTF-8"))
}

/// Microseconds since the Unix epoch of a time (sub-microseconds dropped,
/// as PostgreSQL's `TIMESTAMPTZ` keeps).
pub(crate) fn micros(at: DateTime<Utc>) -> i64 {
    at.timestamp_micros()
}

/// The time of microseconds since the Unix epoch.
///
/// # Errors
/// A storage error when out of range.
pub(crate) fn from_micros(us: i64) -> Result<DateTime<Utc>> {
    Utc.timestamp_micros(us)
        .single()
        .ok_or_else(|| storage("mysql: a stored time is out of range"))
}

/// Optional [`from_micros`].
pub(crate) fn from_micros_opt(us: Option<i64>) -> Result<Option<DateTime<Utc>>> {
    us.map(from_micros).transpose()
}

/// `(seconds, nanoseconds)` of a time; nanoseconds in `0..1e9` (leap seconds folded).
pub(crate) fn split_time(at: DateTime<Utc>) -> (i64, i32) {
    let ns = at.timestamp_subsec_nanos().min(999_999_999);
    (at.timestamp(), i32::try_from(ns).unwrap_or(0))
}

/// The time of `(seconds, nanoseconds)`.
///
/// # Errors
/// A storage error when out of range.
pub(crate) fn join_time(secs: i64, nanos: i32) -> Result<DateTime<Utc>> {
    Utc.timestamp_opt(secs, u32::try_from(nanos).unwrap_or(0))
        .single()
        .ok_or_else(|| storage("mysql: a stored time is out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip() {
        let at = Utc.timestamp_opt(-5, 123_456_789).unwrap();
        assert_eq!(split_time(at), (-5, 123_456_789));
        assert_eq!(join_time(-5, 123_456_789).unwrap(), at);
        let us = micros(at);
        assert_eq!(
            from_micros(us).unwrap(),
            Utc.timestamp_opt(-5, 123_456_000).unwrap()
        );
    }
}
