//! Stored timestamps: the text layout long-term rows keep times in, and its
//! fast parser.

use crate::error::{Result, storage};
use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};

/// Stored time format: UTC, SQLite's `datetime()` layout with microseconds,
/// so stored times sort as text and rows written by `datetime('now')` parse.
const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S%.6f";

/// `time` in the stored format.
pub(crate) fn format_time(time: DateTime<Utc>) -> String {
    time.format(TIME_FORMAT).to_string()
}

/// Parses a stored time (`YYYY-MM-DD HH:MM:SS[.ffffff]`, UTC, or RFC 3339).
///
/// # Errors
/// [`MemoryError::Storage`] for other text.
pub(crate) fn parse_time(text: &str) -> Result<DateTime<Utc>> {
    if let Some(time) = parse_stored(text) {
        return Ok(time);
    }
    NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S%.f")
        .map(|t| t.and_utc())
        .or_else(|_| DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc)))
        .map_err(|e| storage(format!("long-term memory: bad stored time `{text}`: {e}")))
}

/// The exact layout [`format_time`] writes (`YYYY-MM-DD HH:MM:SS.ffffff`),
/// read field by field: maintenance parses times row by row, and this is
/// several times faster than a format string. `None` for anything else.
fn parse_stored(text: &str) -> Option<DateTime<Utc>> {
    let bytes = text.as_bytes();
    let separators = [
        (4, b'-'),
        (7, b'-'),
        (10, b' '),
        (13, b':'),
        (16, b':'),
        (19, b'.'),
    ];
    if bytes.len() != 26 || separators.iter().any(|&(i, c)| bytes.get(i) != Some(&c)) {
        return None;
    }
    let field = |from: usize, to: usize| -> Option<u32> {
        let digits = text.get(from..to)?;
        digits
            .bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| digits.parse().ok())?
    };
    let year = i32::try_from(field(0, 4)?).ok()?;
    let date = NaiveDate::from_ymd_opt(year, field(5, 7)?, field(8, 10)?)?;
    let time = NaiveTime::from_hms_micro_opt(
        field(11, 13)?,
        field(14, 16)?,
        field(17, 19)?,
        field(20, 26)?,
    )?;
    Some(date.and_time(time).and_utc())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_and_accept_sqlite_datetime() {
        let t = DateTime::from_timestamp(1_700_000_000, 123_456_000).unwrap();
        assert_eq!(parse_time(&format_time(t)).unwrap(), t);
        let plain = parse_time("2026-04-12 08:30:00").unwrap();
        assert_eq!(plain, DateTime::from_timestamp(1_775_982_600, 0).unwrap());
        assert!(parse_time("yesterday").is_err());
    }

    #[test]
    fn the_fast_path_reads_what_the_format_string_reads() {
        let mut secs = 0_i64;
        while secs < 4_000_000_000 {
            let micros = u32::try_from(secs % 1_000_000).unwrap();
            let t = DateTime::from_timestamp(secs, micros * 1000).unwrap();
            let text = format_time(t);
            let slow = NaiveDateTime::parse_from_str(&text, "%Y-%m-%d %H:%M:%S%.f").unwrap();
            assert_eq!(parse_stored(&text), Some(slow.and_utc()), "{text}");
            secs += 7_777_777;
        }
        for bad in [
            "2026-13-01 00:00:00.000000",
            "2026-02-30 00:00:00.000000",
            "2026-01-01 24:00:00.000000",
            "+026-01-01 00:00:00.000000",
            "2026-01-01T00:00:00.000000",
            "2026-01-01 00:00:00.00000x",
            "2026-01-01 00:00:00.0000000",
        ] {
            assert_eq!(parse_stored(bad), None, "{bad}");
        }
        assert!(parse_time("2026-13-01 00:00:00.000000").is_err());
    }
}
