//! [`MemoryScope`]: the owner of a long-term memory, checked on construction.

use serde::{Deserialize, Serialize};

use crate::MemoryError;

/// Longest agent name or user id, in bytes.
pub const MAX_SCOPE_PART_BYTES: usize = 256;

/// Characters an agent name may not hold: `/` joins a scope into its
/// `agent/user` label ([`MemoryScope`]'s `Display`, CLI messages and
/// exports) and `:` separates the parts of Redis keys and of the vector
/// namespace (`lt:…`). Without them in the agent name, splitting a label or
/// key at the first separator gives the agent back; the user id is always
/// the last part, so it may hold them.
pub const RESERVED_AGENT_CHARS: [char; 2] = ['/', ':'];

/// The owner of a memory: one agent serving one user. Every long-term memory
/// call is confined to one scope.
///
/// A scope can only be built checked ([`MemoryScope::new`], or
/// deserialized, which runs the same checks), so every `MemoryScope` a
/// backend sees is valid. Both parts must be:
///
/// - non-empty, without leading or trailing whitespace, at most
///   [`MAX_SCOPE_PART_BYTES`] bytes;
/// - free of control characters (Unicode `Cc`, NUL and tab included),
///   invisible format characters (Unicode `Cf`: zero-width spaces and
///   joiners, bidi embeddings, overrides and isolates, the byte-order mark,
///   soft hyphens, tag characters) and whitespace other than the ASCII space.
///
/// The agent name may not hold [`RESERVED_AGENT_CHARS`] (`/`, `:`).
/// No case folding or Unicode normalisation is applied: `Alice` and `alice`
/// are two scopes.
///
/// Displayed as `agent/user`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "ScopeParts")]
pub struct MemoryScope {
    agent: String,
    user: String,
}

/// The serialized shape of a [`MemoryScope`], checked on the way in.
#[derive(Deserialize)]
struct ScopeParts {
    agent: String,
    user: String,
}

impl TryFrom<ScopeParts> for MemoryScope {
    type Error = MemoryError;

    fn try_from(parts: ScopeParts) -> Result<Self, Self::Error> {
        Self::new(parts.agent, parts.user)
    }
}

impl MemoryScope {
    /// The scope of `agent` serving `user`, checked as the type's
    /// documentation says.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the part (`agent name` or
    /// `user id`) and what is wrong with it.
    pub fn new(agent: impl Into<String>, user: impl Into<String>) -> Result<Self, MemoryError> {
        let (agent, user) = (agent.into(), user.into());
        check_part("agent name", &agent, &RESERVED_AGENT_CHARS)?;
        check_part("user id", &user, &[])?;
        Ok(Self { agent, user })
    }

    /// Checks a user id alone by the rules of [`MemoryScope::new`], for
    /// APIs that take the user before the agent is known (a session's user,
    /// which serves whichever agent is active).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] naming the `user id` and what is wrong
    /// with it.
    pub fn check_user(user: &str) -> Result<(), MemoryError> {
        check_part("user id", user, &[])
    }

    /// The scopes of `pairs` that are valid; the others are skipped with a
    /// warning (rows stored before these checks existed cannot be addressed
    /// through the API). For backends listing their stored scopes.
    pub fn valid_only(pairs: impl IntoIterator<Item = (String, String)>) -> Vec<Self> {
        pairs
            .into_iter()
            .filter_map(|(agent, user)| match Self::new(agent, user) {
                Ok(scope) => Some(scope),
                Err(err) => {
                    tracing::warn!(error = %err, "stored long-term scope is invalid; skipped");
                    None
                }
            })
            .collect()
    }

    /// The agent's name.
    pub fn agent(&self) -> &str {
        &self.agent
    }

    /// The user's id.
    pub fn user(&self) -> &str {
        &self.user
    }
}

impl std::fmt::Display for MemoryScope {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.agent, self.user)
    }
}

fn check_part(what: &str, part: &str, reserved: &[char]) -> Result<(), MemoryError> {
    let bad = |why: String| Err(MemoryError::InvalidInput(format!("{what} {part:?} {why}")));
    if part.is_empty() || part.chars().all(char::is_whitespace) {
        return bad("is empty".into());
    }
    if part.trim() != part {
        return bad("has leading or trailing whitespace".into());
    }
    if part.len() > MAX_SCOPE_PART_BYTES {
        return bad(format!(
            "is {} bytes (max {MAX_SCOPE_PART_BYTES})",
            part.len()
        ));
    }
    for c in part.chars() {
        let code = u32::from(c);
        if c.is_control() {
            return bad(format!("contains the control character U+{code:04X}"));
        }
        if is_format(c) {
            return bad(format!(
                "contains the invisible format character U+{code:04X}"
            ));
        }
        if c.is_whitespace() && c != ' ' {
            return bad(format!(
                "contains the whitespace U+{code:04X} (only the ASCII space is allowed)"
            ));
        }
        if reserved.contains(&c) {
            return bad(format!("contains the reserved separator `{c}`"));
        }
    }
    Ok(())
}

/// Unicode general category `Cf` (format characters, Unicode 15.1).
fn is_format(c: char) -> bool {
    matches!(
        u32::from(c),
        0x00AD
            | 0x0600..=0x0605
            | 0x061C
            | 0x06DD
            | 0x070F
            | 0x0890..=0x0891
            | 0x08E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_parts_are_kept_as_given() {
        let scope = MemoryScope::new("assistant", "Alice Smith/team:1").unwrap();
        assert_eq!(
            (scope.agent(), scope.user()),
            ("assistant", "Alice Smith/team:1")
        );
        assert_eq!(scope.to_string(), "assistant/Alice Smith/team:1");
    }

    #[test]
    fn format_characters_are_refused() {
        for c in [
            '\u{ad}',
            '\u{200b}',
            '\u{202e}',
            '\u{2066}',
            '\u{feff}',
            '\u{e0041}',
        ] {
            assert!(MemoryScope::new("a", format!("x{c}y")).is_err(), "{c:?}");
        }
    }

    #[test]
    fn deserializing_checks() {
        let ok: MemoryScope = serde_json::from_str(r#"{"agent":"a","user":"u"}"#).unwrap();
        assert_eq!(ok.user(), "u");
        assert!(serde_json::from_str::<MemoryScope>(r#"{"agent":"a/b","user":"u"}"#).is_err());
        assert_eq!(
            serde_json::to_string(&ok).unwrap(),
            r#"{"agent":"a","user":"u"}"#
        );
    }
}
