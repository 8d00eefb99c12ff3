//! Turning fuzz bytes into structured input without losing coverage.

/// A cursor over fuzz bytes.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { rest: data }
    }

    /// The next byte, `0` once the input is used up.
    pub fn byte(&mut self) -> u8 {
        match self.rest.split_first() {
            Some((first, rest)) => {
                self.rest = rest;
                *first
            }
            None => 0,
        }
    }

    /// The bytes not consumed yet.
    pub fn rest(&self) -> &'a [u8] {
        self.rest
    }

    /// The remaining bytes as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(self.rest).into_owned()
    }
}

/// `text` cut at `sep`, at most `max` parts (the last part keeps the rest).
pub fn parts(text: &str, sep: char, max: usize) -> Vec<&str> {
    text.splitn(max, sep).collect()
}
