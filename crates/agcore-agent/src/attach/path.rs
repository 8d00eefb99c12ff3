//! Paths inside a configuration document (`memory.stores[1].config`).

use super::location::ConfigLocation;

/// The location of `key` (a map key, or `[i]` for a list index) under `at`.
pub fn child(at: &ConfigLocation, key: &str) -> ConfigLocation {
    let path = if at.path.is_empty() {
        key.to_owned()
    } else if key.starts_with('[') {
        format!("{}{key}", at.path)
    } else {
        format!("{}.{key}", at.path)
    };
    ConfigLocation {
        file: at.file.clone(),
        path,
    }
}

/// The entry of `candidates` nearest to `word`, for "did you mean" hints:
/// the rule of every configuration file
/// ([`agcore_config::nearest`]).
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let hit = agcore_config::nearest(word, candidates)?;
    candidates.iter().copied().find(|c| *c == hit)
}

/// `a`, `b` or `c` — a list of valid words for messages.
pub fn one_of(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
    match quoted.split_last() {
        None => "nothing".to_owned(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_and_suggestions() {
        let root = ConfigLocation::default();
        let stores = child(&child(&root, "memory"), "stores");
        assert_eq!(child(&stores, "[2]").path, "memory.stores[2]");
        assert_eq!(
            nearest("top_kk", &["top_k", "read", "write"]),
            Some("top_k")
        );
        assert_eq!(
            nearest("retrieve_stages", &["retrieve_stage", "name"]),
            Some("retrieve_stage")
        );
        assert_eq!(nearest("zzz", &["top_k", "read"]), None);
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
