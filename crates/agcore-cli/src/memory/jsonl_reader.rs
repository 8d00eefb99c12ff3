//! Reading `agcore memory export` files line by line, with a cap on the
//! length of a line, so an import holds one batch in memory whatever the
//! file's size.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use agcore::memory::long_term::MemoryEntry;

use crate::error::CliError;

/// Longest line accepted, in bytes (1 MiB): an entry's content is at most
/// 64 KiB, so a longer line is not an export of agcore.
pub const MAX_LINE_BYTES: usize = 1024 * 1024;

/// The entries of a JSONL file, one per non-blank line, in file order.
pub struct JsonlReader {
    path: PathBuf,
    reader: BufReader<std::fs::File>,
    line_no: usize,
    buf: Vec<u8>,
}

impl JsonlReader {
    /// Opens `path`.
    ///
    /// # Errors
    /// [`CliError::Input`] for a missing or unreadable file.
    pub fn open(path: &Path) -> Result<Self, CliError> {
        let file = std::fs::File::open(path).map_err(|e| {
            let message = if e.kind() == std::io::ErrorKind::NotFound {
                "no such file".to_owned()
            } else {
                format!("cannot read it: {e}")
            };
            CliError::input(path, message)
        })?;
        Ok(Self {
            path: path.to_path_buf(),
            reader: BufReader::new(file),
            line_no: 0,
            buf: Vec::new(),
        })
    }

    /// The next entry, or `None` at the end of the file.
    ///
    /// # Errors
    /// [`CliError::Input`] naming the file and line for a line over
    /// [`MAX_LINE_BYTES`], not UTF-8, not a memory entry, or with empty
    /// content; or when the file cannot be read.
    pub fn next_entry(&mut self) -> Result<Option<MemoryEntry>, CliError> {
        loop {
            self.buf.clear();
            self.line_no += 1;
            let limit = u64::try_from(MAX_LINE_BYTES + 1).unwrap_or(u64::MAX);
            let read = (&mut self.reader)
                .take(limit)
                .read_until(b'\n', &mut self.buf)
                .map_err(|e| CliError::input(&self.path, format!("cannot read it: {e}")))?;
            if read == 0 {
                return Ok(None);
            }
            if self.buf.len() > MAX_LINE_BYTES {
                return Err(self.bad(format!(
                    "the line is longer than {MAX_LINE_BYTES} bytes (a memory's content is at most 64 KiB)"
                )));
            }
            let line = std::str::from_utf8(&self.buf)
                .map_err(|_| self.bad("the line is not UTF-8".to_owned()))?;
            let line = line.trim_end_matches(['\n', '\r']);
            if line.trim().is_empty() {
                continue;
            }
            return parse_line(line).map(Some).map_err(|m| self.bad(m));
        }
    }

    fn bad(&self, message: String) -> CliError {
        CliError::input(&self.path, format!("line {}: {message}", self.line_no))
    }
}

/// Parses one line into an entry; the message says what is wrong.
fn parse_line(line: &str) -> Result<MemoryEntry, String> {
    let entry: MemoryEntry = serde_json::from_str(line).map_err(|e| {
        let what = if e.is_eof() {
            "truncated JSON"
        } else if e.is_data() {
            "not a memory entry"
        } else {
            "invalid JSON"
        };
        format!("{what}: {e}")
    })?;
    if entry.content.trim().is_empty() {
        return Err("the memory content is empty".to_owned());
    }
    Ok(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(text: &[u8]) -> Result<usize, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let path = dir.path().join("m.jsonl");
        std::fs::write(&path, text).map_err(|e| e.to_string())?;
        let mut reader = JsonlReader::open(&path).map_err(|e| e.to_string())?;
        let mut n = 0;
        while reader.next_entry().map_err(|e| e.to_string())?.is_some() {
            n += 1;
        }
        Ok(n)
    }

    #[test]
    fn bad_lines_are_named() {
        let err = read_all(b"\n{\"id\": 1").unwrap_err();
        assert!(err.contains("m.jsonl: line 2: truncated JSON"), "{err}");
        let err = read_all(b"{\"id\": 1}").unwrap_err();
        assert!(err.contains("line 1: not a memory entry"), "{err}");
        let err = read_all(b"\n\xff\xfe\n").unwrap_err();
        assert!(err.contains("line 2: the line is not UTF-8"), "{err}");
        assert_eq!(read_all(b"\n\n"), Ok(0));
    }

    #[test]
    fn an_overlong_line_is_refused_without_reading_it_whole() {
        let mut text = b"\n".to_vec();
        text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES + 10));
        let err = read_all(&text).unwrap_err();
        assert!(
            err.contains("line 2: the line is longer than 1048576 bytes"),
            "{err}"
        );
    }
}
