//! Input checks and the canonical forms used for de-duplication.

use super::changes::NewMemory;
use super::entry::MAX_ENTRY_CONTENT_BYTES;
use super::limits::validate_fields;
use crate::MemoryError;

/// The current time at microsecond precision (what every backend stores).
pub(crate) fn now() -> chrono::DateTime<chrono::Utc> {
    use chrono::SubsecRound;
    chrono::Utc::now().trunc_subsecs(6)
}

/// Longest derived title, in characters.
const DERIVED_NAME_CHARS: usize = 48;

/// The de-duplication key of a memory text: trimmed, every whitespace run
/// collapsed to one space, lowercased (Unicode case folding by
/// `char::to_lowercase`). Two texts with the same key in one scope are the
/// same memory.
///
/// # Examples
/// ```
/// use agcore_memory::long_term::content_key;
/// assert_eq!(content_key("  The user  prefers\nTEA "), "the user prefers tea");
/// assert_eq!(content_key("用户 喜欢\t茶"), "用户 喜欢 茶");
/// ```
pub fn content_key(content: &str) -> String {
    content
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Tags trimmed, lowercased, empty ones dropped, sorted and de-duplicated.
pub fn normalize_tags(tags: &[String]) -> Vec<String> {
    let mut out: Vec<String> = tags
        .iter()
        .map(|t| t.trim().to_lowercase())
        .filter(|t| !t.is_empty())
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// A title for a memory saved without one: the first line of the content,
/// whitespace collapsed, cut to 48 characters (with `…` when cut).
pub fn derive_name(content: &str) -> String {
    let first = content.trim().lines().next().unwrap_or_default();
    let collapsed = first.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= DERIVED_NAME_CHARS {
        collapsed
    } else {
        let mut cut: String = collapsed.chars().take(DERIVED_NAME_CHARS - 1).collect();
        cut.push('…');
        cut
    }
}

/// Checks a memory text: non-empty after trimming, at most
/// [`MAX_ENTRY_CONTENT_BYTES`].
///
/// # Errors
/// [`MemoryError::InvalidInput`].
pub(crate) fn validate_content(content: &str) -> Result<(), MemoryError> {
    if content.trim().is_empty() {
        return Err(MemoryError::InvalidInput("memory content is empty".into()));
    }
    if content.contains('\0') {
        return Err(MemoryError::InvalidInput(
            "memory content must not contain NUL characters".into(),
        ));
    }
    if content.len() > MAX_ENTRY_CONTENT_BYTES {
        return Err(MemoryError::InvalidInput(format!(
            "memory content is {} bytes (max {MAX_ENTRY_CONTENT_BYTES})",
            content.len()
        )));
    }
    Ok(())
}

/// Checks a weight is a finite number.
///
/// # Errors
/// [`MemoryError::InvalidInput`].
pub(crate) fn validate_weight(weight: f64) -> Result<(), MemoryError> {
    if weight.is_finite() {
        Ok(())
    } else {
        Err(MemoryError::InvalidInput(format!(
            "memory weight must be a finite number, got {weight}"
        )))
    }
}

/// Validates `new` and fills the derived fields: a title when empty, tags
/// normalised.
///
/// # Errors
/// [`MemoryError::InvalidInput`] for empty or oversized content, a field
/// over its limit (see `docs/memory.md`, *Entries and types*) or a non-finite weight.
pub(crate) fn prepare_new(mut new: NewMemory) -> Result<NewMemory, MemoryError> {
    validate_content(&new.content)?;
    validate_fields(
        Some(&new.name),
        Some(&new.description),
        Some(&new.tags),
        Some(&new.metadata),
    )?;
    if let Some(w) = new.weight {
        validate_weight(w)?;
    }
    if new.name.trim().is_empty() {
        new.name = derive_name(&new.content);
    }
    new.tags = normalize_tags(&new.tags);
    Ok(new)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::long_term::MemoryType;

    #[test]
    fn keys_fold_case_and_whitespace() {
        assert_eq!(content_key("A  b\tC"), content_key(" a b c "));
        assert_ne!(content_key("a b"), content_key("ab"));
    }

    #[test]
    fn tags_are_canonical() {
        let tags = vec![
            " Rust".to_owned(),
            "rust".into(),
            String::new(),
            "AI".into(),
        ];
        assert_eq!(normalize_tags(&tags), vec!["ai", "rust"]);
    }

    #[test]
    fn derived_names_are_short() {
        assert_eq!(derive_name("  hello\nworld"), "hello");
        let long = "字".repeat(100);
        assert_eq!(derive_name(&long).chars().count(), 48);
    }

    #[test]
    fn prepare_rejects_bad_input() {
        assert!(prepare_new(NewMemory::new(MemoryType::User, "x", "  ")).is_err());
        assert!(
            prepare_new(NewMemory::new(MemoryType::User, "x", "ok").with_weight(f64::NAN)).is_err()
        );
        let big = "a".repeat(MAX_ENTRY_CONTENT_BYTES + 1);
        assert!(prepare_new(NewMemory::new(MemoryType::User, "x", big)).is_err());
        let ok = prepare_new(NewMemory::new(MemoryType::User, "", "tea please")).unwrap();
        assert_eq!(ok.name, "tea please");
    }
}
