//! Reading criterion's JSON output and rendering the summary table.
//!
//! Per benchmark criterion writes `<criterion dir>/<group>/<function>[/<value>]/new/`
//! holding `benchmark.json` (ids and throughput) and `estimates.json` (statistics of the
//! time per iteration, in nanoseconds).
//!
//! Each group's baseline is the benchmark whose name contains `baseline` when there is one,
//! otherwise the group's first benchmark run; the ratio column is
//! `median time / baseline median time`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::SystemTime;

use serde_json::Value;

/// Work done by one iteration, as declared with criterion's `Throughput`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Throughput {
    /// Bytes per iteration (criterion `Bytes`, `BytesDecimal`, or `Bits` / 8).
    Bytes(f64),
    /// Elements per iteration (criterion `Elements`, or the elements of `ElementsAndBytes`).
    Elements(f64),
}

/// One benchmark's result from the current run.
#[derive(Debug, Clone)]
pub struct BenchResult {
    /// Criterion group id.
    pub group: String,
    /// Function id, with `/value` appended when the benchmark has a parameter.
    pub name: String,
    /// Median time per iteration, in nanoseconds.
    pub median_ns: f64,
    /// Declared work per iteration, if any.
    pub throughput: Option<Throughput>,
    /// When `estimates.json` was written (orders the benchmarks as they ran).
    pub written: SystemTime,
}

/// Collects every result under `dir` whose `estimates.json` was written at or after `since`,
/// ordered by group (first run first) and then by run order.
///
/// # Errors
/// A message when a result file cannot be read or parsed.
pub fn collect(dir: &Path, since: SystemTime) -> Result<Vec<BenchResult>, String> {
    let mut results = Vec::new();
    if dir.is_dir() {
        walk(dir, since, &mut results)?;
    }
    results.sort_by_key(|result| result.written);
    let mut groups: Vec<String> = Vec::new();
    for result in &results {
        if !groups.contains(&result.group) {
            groups.push(result.group.clone());
        }
    }
    results.sort_by_key(|result| {
        let group_rank = groups.iter().position(|group| *group == result.group);
        (group_rank, result.written)
    });
    Ok(results)
}

fn walk(dir: &Path, since: SystemTime, out: &mut Vec<BenchResult>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|err| format!("cannot list {}: {err}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|err| format!("cannot list {}: {err}", dir.display()))?
            .path();
        if !path.is_dir() {
            continue;
        }
        if path.file_name().is_some_and(|name| name == "new") {
            if let Some(result) = read_result(&path, since)? {
                out.push(result);
            }
        } else {
            walk(&path, since, out)?;
        }
    }
    Ok(())
}

fn read_result(new_dir: &Path, since: SystemTime) -> Result<Option<BenchResult>, String> {
    let estimates_path = new_dir.join("estimates.json");
    let benchmark_path = new_dir.join("benchmark.json");
    if !estimates_path.is_file() || !benchmark_path.is_file() {
        return Ok(None);
    }
    let written = std::fs::metadata(&estimates_path)
        .and_then(|meta| meta.modified())
        .map_err(|err| format!("cannot stat {}: {err}", estimates_path.display()))?;
    if written < since {
        return Ok(None);
    }
    let estimates = read_json(&estimates_path)?;
    let benchmark = read_json(&benchmark_path)?;
    let median_ns = estimates
        .pointer("/median/point_estimate")
        .and_then(Value::as_f64)
        .ok_or_else(|| format!("{}: no median.point_estimate", estimates_path.display()))?;
    let text = |key: &str| {
        benchmark
            .get(key)
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    let group =
        text("group_id").ok_or_else(|| format!("{}: no group_id", benchmark_path.display()))?;
    let mut name = text("function_id").unwrap_or_default();
    if let Some(value) = text("value_str") {
        name = if name.is_empty() {
            value
        } else {
            format!("{name}/{value}")
        };
    }
    Ok(Some(BenchResult {
        group,
        name,
        median_ns,
        throughput: benchmark.get("throughput").and_then(parse_throughput),
        written,
    }))
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| format!("cannot read {}: {err}", path.display()))?;
    serde_json::from_str(&text).map_err(|err| format!("cannot parse {}: {err}", path.display()))
}

/// Criterion serialises `Throughput` as an externally tagged enum, e.g. `{"Bytes": 1048576}`.
fn parse_throughput(value: &Value) -> Option<Throughput> {
    let (kind, amount) = value.as_object()?.iter().next()?;
    let number = |v: &Value| v.as_u64().map(|n| n as f64);
    match kind.as_str() {
        "Bytes" | "BytesDecimal" => number(amount).map(Throughput::Bytes),
        "Bits" => number(amount).map(|bits| Throughput::Bytes(bits / 8.0)),
        "Elements" => number(amount).map(Throughput::Elements),
        "ElementsAndBytes" => amount
            .get("elements")
            .and_then(number)
            .map(Throughput::Elements),
        _ => None,
    }
}

/// Renders the summary: group, benchmark, median time, throughput, ratio to the baseline.
pub fn table(results: &[BenchResult]) -> String {
    let header = ["group", "benchmark", "median", "throughput", "vs baseline"];
    let mut rows: Vec<[String; 5]> = Vec::new();
    for result in results {
        let group: Vec<&BenchResult> = results.iter().filter(|r| r.group == result.group).collect();
        let baseline = group
            .iter()
            .find(|r| r.name.contains("baseline"))
            .or_else(|| group.first())
            .copied();
        let ratio = match baseline {
            Some(base) if std::ptr::eq(base, result) => "1.00 (baseline)".to_owned(),
            Some(base) if base.median_ns > 0.0 => {
                format!("{:.2}x {}", result.median_ns / base.median_ns, base.name)
            }
            _ => "-".to_owned(),
        };
        rows.push([
            result.group.clone(),
            result.name.clone(),
            format_time(result.median_ns),
            result.throughput.map_or_else(
                || "-".to_owned(),
                |t| format_throughput(t, result.median_ns),
            ),
            ratio,
        ]);
    }
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[String]| {
        let mut text = String::new();
        for (cell, width) in cells.iter().zip(widths) {
            let _ = write!(text, "{cell:<width$}  ");
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header.map(str::to_owned));
    line(&widths.map(|w| "-".repeat(w)));
    for row in &rows {
        line(row);
    }
    out.push_str("ratio = median time / baseline median time (lower is faster)");
    out
}

/// Nanoseconds with 3 significant digits in ns, µs, ms or s.
fn format_time(ns: f64) -> String {
    let (value, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", three_digits(value))
}

/// Throughput in decimal units (MB/s = 10^6 bytes per second).
fn format_throughput(throughput: Throughput, median_ns: f64) -> String {
    if median_ns <= 0.0 {
        return "-".to_owned();
    }
    let per_second = |amount: f64| amount * 1e9 / median_ns;
    let (value, units) = match throughput {
        Throughput::Bytes(bytes) => (per_second(bytes), ["B/s", "kB/s", "MB/s", "GB/s"]),
        Throughput::Elements(n) => (per_second(n), ["elem/s", "Kelem/s", "Melem/s", "Gelem/s"]),
    };
    let mut scaled = value;
    let mut units = units.iter();
    let mut unit = units.next().copied().unwrap_or_default();
    for next in units {
        if scaled < 1e3 {
            break;
        }
        scaled /= 1e3;
        unit = next;
    }
    format!("{} {unit}", three_digits(scaled))
}

fn three_digits(value: f64) -> String {
    if value >= 100.0 {
        format!("{value:.0}")
    } else if value >= 10.0 {
        format!("{value:.1}")
    } else {
        format!("{value:.2}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throughput_variants_parse() {
        let parse = |s: &str| parse_throughput(&serde_json::from_str(s).unwrap());
        assert_eq!(parse(r#"{"Bytes":1000}"#), Some(Throughput::Bytes(1000.0)));
        assert_eq!(parse(r#"{"Bits":80}"#), Some(Throughput::Bytes(10.0)));
        assert_eq!(
            parse(r#"{"ElementsAndBytes":{"elements":3,"bytes":9}}"#),
            Some(Throughput::Elements(3.0))
        );
        assert_eq!(parse("null"), None);
    }

    #[test]
    fn units_scale() {
        assert_eq!(format_time(1_500.0), "1.50 µs");
        assert_eq!(format_time(250_000_000.0), "250 ms");
        // 1 MB in 1 ms = 1 GB/s.
        assert_eq!(format_throughput(Throughput::Bytes(1e6), 1e6), "1.00 GB/s");
    }

    #[test]
    fn ratios_are_against_the_named_baseline() {
        let at = |secs| SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(secs);
        let result = |name: &str, ns, secs| BenchResult {
            group: "g".into(),
            name: name.into(),
            median_ns: ns,
            throughput: None,
            written: at(secs),
        };
        let text = table(&[
            result("decode", 400.0, 1),
            result("byte_copy_baseline", 100.0, 2),
        ]);
        assert!(text.contains("4.00x byte_copy_baseline"), "{text}");
        assert!(text.contains("1.00 (baseline)"), "{text}");
    }
}
