//! Reading typed columns out of result rows.

use std::cmp::Ordering;

use chrono::{DateTime, TimeZone, Utc};
use mysql_async::prelude::FromValue;
use mysql_async::{Row, Value};

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

/// Sorts the store's search results best first: column `score` (a
/// `DOUBLE`) descending, ties by column `id` (`VARBINARY`, by bytes as the
/// server compares them) ascending.
///
/// The search ranks in a derived table (`ORDER BY score DESC, i.id LIMIT
/// k`) and joins the winners' rows to it by row number. An outer `ORDER BY
/// s.score, i.id` over that join made the server copy every selected row,
/// content included, into a temporary table, and a table with
/// `BLOB`/`TEXT` columns is an on-disk one (Aria files in the server's
/// `tmpdir`): one file pair created and deleted per search. The join's
/// order is not defined without it, so the few rows are sorted here (the
/// long-term search sorts its parsed hits the same way).
pub(crate) fn sort_best_first(rows: &mut [Row], score: usize, id: usize) {
    rows.sort_by(|a, b| {
        best_first(
            (a.as_ref(score), a.as_ref(id)),
            (b.as_ref(score), b.as_ref(id)),
        )
    });
}

/// The order of two `(score, id)` column pairs, best first.
fn best_first(
    a: (Option<&Value>, Option<&Value>),
    b: (Option<&Value>, Option<&Value>),
) -> Ordering {
    double(b.0)
        .total_cmp(&double(a.0))
        .then_with(|| tie(a.1, b.1))
}

/// A `DOUBLE` column's value (NaN when it is not one, which sorts first
/// descending; the searches' scores are never NULL).
fn double(value: Option<&Value>) -> f64 {
    match value {
        Some(Value::Double(x)) => *x,
        Some(Value::Float(x)) => f64::from(*x),
        Some(other) => f64::from_value_opt(other.clone()).unwrap_or(f64::NAN),
        None => f64::NAN,
    }
}

/// The order of two `VARBINARY` id columns: by bytes, as the server
/// compares them.
fn tie(a: Option<&Value>, b: Option<&Value>) -> Ordering {
    match (a, b) {
        (Some(Value::Bytes(a)), Some(Value::Bytes(b))) => a.cmp(b),
        _ => Ordering::Equal,
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

pub(crate) use agcore_memory::sql_store::split_time;

/// The time of `(seconds, nanoseconds)`.
///
/// # Errors
/// A storage error when out of range.
pub(crate) fn join_time(secs: i64, nanos: i32) -> Result<DateTime<Utc>> {
    agcore_memory::sql_store::join_time(secs, nanos)
        .ok_or_else(|| storage("mysql: a stored time is out of range"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut pairs: Vec<(f64, Value)>) -> Vec<Value> {
        pairs.sort_by(|a, b| {
            let (sa, sb) = (Value::Double(a.0), Value::Double(b.0));
            best_first((Some(&sa), Some(&a.1)), (Some(&sb), Some(&b.1)))
        });
        pairs.into_iter().map(|(_, id)| id).collect()
    }

    #[test]
    fn best_first_is_score_descending_then_id_ascending() {
        let bytes = |s: &str| Value::Bytes(s.as_bytes().to_vec());
        let ids = sorted(vec![
            (1.0, bytes("b")),
            (3.0, bytes("z")),
            (1.0, bytes("a")),
            (2.5, bytes("c")),
            (3.0, bytes("y")),
        ]);
        assert_eq!(ids, ["y", "z", "c", "a", "b"].map(bytes).to_vec());
        // Ids compare by bytes: "B" (0x42) before "a" (0x61), as in the server.
        assert_eq!(
            sorted(vec![(1.0, bytes("a")), (1.0, bytes("B"))]),
            ["B", "a"].map(bytes).to_vec()
        );
        // Text-protocol scores (bytes) compare as numbers.
        let (a, b) = (
            Value::Bytes(b"10.5".to_vec()),
            Value::Bytes(b"9.25".to_vec()),
        );
        let order = best_first((Some(&a), Some(&bytes("b"))), (Some(&b), Some(&bytes("a"))));
        assert_eq!(order, Ordering::Less, "10.5 ranks before 9.25");
    }

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
