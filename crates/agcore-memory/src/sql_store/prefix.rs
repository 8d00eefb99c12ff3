//! The id range of a prefix filter, for stores that compare ids by code
//! point (SQLite's byte-wise text order): `[prefix, prefix_upper_bound)`
//! holds exactly the ids starting with `prefix`, a range an index on ids
//! answers.

/// The smallest string greater than every string starting with `prefix`:
/// the last character that has a successor is incremented and the rest cut
/// off. `None` when every character is `char::MAX` (no upper bound needed).
#[must_use]
pub fn prefix_upper_bound(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = match u32::from(last) + 1 {
            0xD800 => Some('\u{E000}'),
            code => char::from_u32(code),
        };
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upper_bound_is_the_successor_of_the_prefix() {
        assert_eq!(prefix_upper_bound("ab").as_deref(), Some("ac"));
        assert_eq!(
            prefix_upper_bound("a\u{D7FF}").as_deref(),
            Some("a\u{E000}")
        );
        assert_eq!(prefix_upper_bound("a\u{10FFFF}").as_deref(), Some("b"));
        assert_eq!(prefix_upper_bound("\u{10FFFF}"), None);
        assert_eq!(prefix_upper_bound(""), None);
    }
}
