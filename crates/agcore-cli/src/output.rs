//! Writing to stdout: aligned tables for people, JSON for scripts.
//!
//! A closed pipe (`agcore memory list | head`) ends output quietly.

use std::io::Write;

use serde::Serialize;

use crate::error::CliError;

/// Writes `text` to stdout; a closed pipe is not an error.
///
/// # Errors
/// [`CliError::Io`] for other write failures.
pub fn emit(text: &str) -> Result<(), CliError> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::Io(err)),
        _ => Ok(()),
    }
}

/// Writes `text` and a newline to stdout.
///
/// # Errors
/// As [`emit`].
pub fn line(text: &str) -> Result<(), CliError> {
    emit(&format!("{text}\n"))
}

/// Writes `value` as pretty JSON to stdout.
///
/// # Errors
/// As [`emit`]; [`CliError::Io`] if the value does not serialise.
pub fn json<T: Serialize + ?Sized>(value: &T) -> Result<(), CliError> {
    let text =
        serde_json::to_string_pretty(value).map_err(|e| CliError::Io(std::io::Error::other(e)))?;
    line(&text)
}

/// A text table with a header row and columns padded to their widest cell
/// (width counted in characters, East Asian wide characters as two).
#[derive(Debug, Default)]
pub struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table with these column titles.
    pub fn new<I: IntoIterator<Item = S>, S: Into<String>>(header: I) -> Self {
        Self {
            header: header.into_iter().map(Into::into).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (missing cells print empty).
    pub fn row<I: IntoIterator<Item = S>, S: Into<String>>(&mut self, cells: I) {
        self.rows.push(cells.into_iter().map(Into::into).collect());
    }

    /// The rendered table, one line per row, trailing spaces trimmed.
    pub fn render(&self) -> String {
        let columns = self.header.len();
        let mut widths: Vec<usize> = self.header.iter().map(|h| width(h)).collect();
        for row in &self.rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(width(cell));
            }
        }
        let mut out = String::new();
        for row in std::iter::once(&self.header).chain(&self.rows) {
            let mut text = String::new();
            for (i, w) in widths.iter().enumerate().take(columns) {
                let cell = row.get(i).map_or("", String::as_str);
                text.push_str(cell);
                if i + 1 < columns {
                    text.push_str(&" ".repeat(w.saturating_sub(width(cell)) + 2));
                }
            }
            out.push_str(text.trim_end());
            out.push('\n');
        }
        out
    }
}

/// Display width: wide CJK characters count two columns.
pub fn width(text: &str) -> usize {
    text.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum()
}

fn is_wide(c: char) -> bool {
    matches!(u32::from(c),
        0x1100..=0x115F | 0x2E80..=0x303E | 0x3041..=0x33FF | 0x3400..=0x4DBF
        | 0x4E00..=0x9FFF | 0xA000..=0xA4CF | 0xAC00..=0xD7A3 | 0xF900..=0xFAFF
        | 0xFE30..=0xFE4F | 0xFF00..=0xFF60 | 0xFFE0..=0xFFE6 | 0x1F300..=0x1F64F
        | 0x1F900..=0x1F9FF | 0x20000..=0x3FFFD)
}

/// `text` on one line, cut to `max` display columns with `…`.
pub fn cell(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if width(&flat) <= max {
        return flat;
    }
    let mut out = String::new();
    let mut used = 0;
    for c in flat.chars() {
        let w = if is_wide(c) { 2 } else { 1 };
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// A byte count as `12.3 KiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    match (unit, UNITS.get(unit)) {
        (0, _) => format!("{bytes} B"),
        (_, Some(name)) => format!("{value:.1} {name}"),
        (_, None) => format!("{bytes} B"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_align_with_wide_characters() {
        let mut table = Table::new(["id", "content"]);
        table.row(["1", "tea"]);
        table.row(["22", "中文"]);
        assert_eq!(table.render(), "id  content\n1   tea\n22  中文\n");
    }

    #[test]
    fn cells_are_cut_by_display_width() {
        assert_eq!(cell("a  b\nc", 10), "a b c");
        assert_eq!(cell("abcdefgh", 5), "abcd…");
        assert_eq!(width(&cell("中文中文中文", 7)), 7);
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(2048), "2.0 KiB");
    }
}
