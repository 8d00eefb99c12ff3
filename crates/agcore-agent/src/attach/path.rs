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

/// The entry of `candidates` nearest to `word` (Jaro–Winkler similarity
/// ≥ 0.8, or a Levenshtein distance ≤ 2), for "did you mean" hints.
pub fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| {
            (
                *c,
                strsim::jaro_winkler(word, c),
                strsim::levenshtein(word, c),
            )
        })
        .filter(|(_, similarity, distance)| *similarity >= 0.8 || *distance <= 2)
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(c, _, _)| c)
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
