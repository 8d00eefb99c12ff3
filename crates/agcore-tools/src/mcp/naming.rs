//! Names under which MCP tools are exposed to the model: `server__tool`.
//!
//! Model APIs accept function names matching `^[a-zA-Z0-9_-]{1,64}$`; MCP tool
//! names may hold other characters (`.`, `/`, CJK) and servers may share tool
//! names, so each tool is exposed as `<server>__<tool>` with every other
//! character replaced by `_`. A name that is too long, or that two tools of one
//! server would share after the replacement, is cut and given an 8-hex-digit
//! FNV-1a hash of the original `server` + `tool` pair, so the result is
//! deterministic and unique.

use std::collections::HashMap;

/// Longest function name model APIs accept.
pub const MAX_TOOL_NAME_LEN: usize = 64;

/// Separator between server and tool name.
pub(crate) const SEPARATOR: &str = "__";

/// Length of the `_` + 8 hex digits suffix.
const HASH_SUFFIX_LEN: usize = 9;

/// Replaces every character outside `[a-zA-Z0-9_-]` with `_`.
pub fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The exposed name of `tool` on `server`, ignoring collisions with other tools:
/// `sanitize(server) + "__" + sanitize(tool)`, hashed when longer than 64.
///
/// ```
/// use agcore_tools::mcp::qualified_tool_name;
///
/// assert_eq!(qualified_tool_name("everything", "get-sum"), "everything__get-sum");
/// assert_eq!(qualified_tool_name("fs", "files.read"), "fs__files_read");
/// ```
pub fn qualified_tool_name(server: &str, tool: &str) -> String {
    let base = format!("{}{SEPARATOR}{}", sanitize(server), sanitize(tool));
    if base.len() > MAX_TOOL_NAME_LEN {
        hashed(&base, server, tool)
    } else {
        base
    }
}

/// Exposed names for all tools of one server, in the same order: like
/// [`qualified_tool_name`], but tools whose names would coincide all get the
/// hash suffix.
pub fn exposed_tool_names(server: &str, tools: &[&str]) -> Vec<String> {
    let bases: Vec<String> = tools
        .iter()
        .map(|tool| qualified_tool_name(server, tool))
        .collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for base in &bases {
        *counts.entry(base.as_str()).or_default() += 1;
    }
    bases
        .iter()
        .zip(tools)
        .map(|(base, tool)| {
            if counts.get(base.as_str()).copied().unwrap_or(0) > 1 {
                hashed(base, server, tool)
            } else {
                base.clone()
            }
        })
        .collect()
}

/// `base` cut to leave room for `_` + the hash of `server`/`tool`.
fn hashed(base: &str, server: &str, tool: &str) -> String {
    // `base` is ASCII after sanitising, so any byte index is a char boundary.
    let keep = base.len().min(MAX_TOOL_NAME_LEN - HASH_SUFFIX_LEN);
    let prefix = base.get(..keep).unwrap_or(base);
    format!("{prefix}_{:08x}", fnv1a32(server, tool))
}

/// 32-bit FNV-1a over `server`, a NUL byte and `tool` (stable across platforms and releases).
fn fnv1a32(server: &str, tool: &str) -> u32 {
    const OFFSET: u32 = 0x811c_9dc5;
    const PRIME: u32 = 0x0100_0193;
    server
        .bytes()
        .chain(std::iter::once(0))
        .chain(tool.bytes())
        .fold(OFFSET, |hash, byte| {
            (hash ^ u32::from(byte)).wrapping_mul(PRIME)
        })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn is_valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_TOOL_NAME_LEN
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    }

    #[test]
    fn plain_names_are_kept() {
        assert_eq!(
            qualified_tool_name("everything", "echo"),
            "everything__echo"
        );
        assert_eq!(
            qualified_tool_name("my-server", "trigger-long-running-operation"),
            "my-server__trigger-long-running-operation"
        );
    }

    #[test]
    fn other_characters_become_underscores() {
        assert_eq!(
            qualified_tool_name("file system", "fs/read.v2"),
            "file_system__fs_read_v2"
        );
        assert_eq!(qualified_tool_name("记忆", "搜索"), "______");
    }

    #[test]
    fn fnv_matches_reference_vectors() {
        // FNV-1a 32 of "" is the offset basis; of "a" is 0xe40c292c.
        assert_eq!(
            "a".bytes().fold(0x811c_9dc5_u32, |h, b| (h ^ u32::from(b))
                .wrapping_mul(0x0100_0193)),
            0xe40c_292c
        );
        assert_ne!(fnv1a32("ab", "c"), fnv1a32("a", "bc"));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let tool = "x".repeat(100);
        let name = qualified_tool_name("server", &tool);
        assert_eq!(name.len(), MAX_TOOL_NAME_LEN);
        assert!(is_valid(&name));
        assert_eq!(name, qualified_tool_name("server", &tool));
        assert_ne!(name, qualified_tool_name("server", &"x".repeat(101)));
    }

    #[test]
    fn colliding_names_are_disambiguated() {
        let names = exposed_tool_names("s", &["a.b", "a_b", "c", "搜索", "查询"]);
        assert_eq!(names[2], "s__c");
        assert!(names[0].starts_with("s__a_b_") && names[1].starts_with("s__a_b_"));
        assert_ne!(names[0], names[1]);
        assert_ne!(names[3], names[4]);
        assert!(names.iter().all(|n| is_valid(n)));
    }

    proptest! {
        #[test]
        fn exposed_names_are_valid_unique_and_deterministic(
            server in "\\PC{1,20}",
            tools in proptest::collection::hash_set("\\PC{1,80}", 1..12),
        ) {
            let tools: Vec<&str> = tools.iter().map(String::as_str).collect();
            let names = exposed_tool_names(&server, &tools);
            prop_assert_eq!(names.len(), tools.len());
            for name in &names {
                prop_assert!(is_valid(name), "invalid name {:?}", name);
            }
            let unique: std::collections::HashSet<&String> = names.iter().collect();
            prop_assert_eq!(unique.len(), names.len());
            prop_assert_eq!(names, exposed_tool_names(&server, &tools));
        }
    }
}
