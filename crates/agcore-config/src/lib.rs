//! "Did you mean" for configuration files: a key or value that serde
//! rejects as unknown is reported with its full dotted path and the nearest
//! valid spelling (``unknown key `memory.long_term.max_retrun`; did you mean
//! `max_return`?``). Keys the seeds name but agcore does not implement are
//! rejected with what to write instead. Every key is listed in
//! `docs/configuration.md`.

mod parse;
mod retired;

use parse::is_table;
pub use parse::{check_top_level, from_table, from_toml_text};
use retired::{RETIRED, VALUE_HINTS};

/// How a key path is shown in messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Notation {
    /// TOML: a table is a section, shown as `[memory.short_term]`.
    Toml,
    /// YAML and others: every key as a dotted path.
    Plain,
}

/// Whether serde found an unknown key or an unknown value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownKind {
    /// `unknown field`.
    Key,
    /// `unknown variant`.
    Value,
}

/// An unknown key or value as serde reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unknown {
    /// Key or value.
    pub kind: UnknownKind,
    /// The word written.
    pub word: String,
    /// The valid words serde lists.
    pub expected: Vec<String>,
}

/// Reads serde's ``unknown field `x`, expected one of `a`, `b` `` (or
/// `unknown variant`, `expected `a``, `` `a` or `b` ``, `there are no
/// fields`); `None` for any other message.
pub fn parse_unknown(message: &str) -> Option<Unknown> {
    let line = message.lines().next()?.trim();
    let kind = if line.starts_with("unknown field `") {
        UnknownKind::Key
    } else if line.starts_with("unknown variant `") {
        UnknownKind::Value
    } else {
        return None;
    };
    let mut quoted = line.split('`').skip(1).step_by(2).map(str::to_owned);
    let word = quoted.next()?;
    Some(Unknown {
        kind,
        word,
        expected: quoted.collect(),
    })
}

/// `word` in snake_case: camelCase humps and `-` become `_`, all lowercase
/// (`prefetchLimit` → `prefetch_limit`).
pub fn normalize_key(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 4);
    let mut previous_lower = false;
    for c in word.chars() {
        if c.is_uppercase() && previous_lower {
            out.push('_');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        if c == '-' {
            out.push('_');
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// The edit distance of `word` (normalised) to `candidate`: optimal string
/// alignment, so a swap of two neighbours counts once.
pub fn distance(word: &str, candidate: &str) -> usize {
    strsim::osa_distance(&normalize_key(word), candidate)
}

/// The candidate nearest to `word`: fewest edits (insert, delete, replace,
/// swap of neighbours; case and `-` ignored), then the higher Jaro–Winkler
/// similarity. Candidates more than `max(2, len / 3)` edits away with a
/// similarity below 0.85 are never suggested, nor `word` itself.
pub fn nearest<'a, S: AsRef<str>>(word: &str, candidates: &'a [S]) -> Option<&'a str> {
    let norm = normalize_key(word);
    candidates
        .iter()
        .map(AsRef::as_ref)
        .filter(|c| *c != word)
        .map(|c| {
            let edits = strsim::osa_distance(&norm, c);
            (c, edits, strsim::jaro_winkler(&norm, c))
        })
        .filter(|(c, edits, similarity)| {
            *edits <= (c.chars().count() / 3).max(2) || *similarity >= 0.85
        })
        .min_by(|a, b| a.1.cmp(&b.1).then(b.2.total_cmp(&a.2)))
        .map(|(c, _, _)| c)
}

/// `` `a`, `b` or `c` ``.
pub fn one_of<S: AsRef<str>>(words: &[S]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("`{}`", w.as_ref())).collect();
    match quoted.split_last() {
        None => "none".to_owned(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The message for serde's `message` about the key at dotted `path`
/// (`memory.long_term.max_retrun`): an unknown key or value names the
/// nearest valid one (`extra` adds valid dotted paths serde does not list),
/// a seed key agcore lacks says what to write instead, any other message is
/// prefixed with the path. `root`, when given, tells sections from keys.
pub fn explain(
    path: &str,
    message: &str,
    root: Option<&toml::Table>,
    notation: Notation,
    extra: &[&str],
) -> String {
    let message = message.lines().next().unwrap_or(message).trim();
    let Some(unknown) = parse_unknown(message) else {
        return if path.is_empty() || path == "." {
            message.to_owned()
        } else {
            format!("`{path}`: {message}")
        };
    };
    let (parent, _) = path.rsplit_once('.').unwrap_or(("", path));
    match unknown.kind {
        UnknownKind::Value => explain_value(path, &unknown),
        UnknownKind::Key => {
            let normalized: Vec<String> = path.split('.').map(normalize_key).collect();
            if let Some((_, hint)) = RETIRED.iter().find(|(p, _)| *p == normalized.join(".")) {
                return format!("unknown key `{path}`: {hint}");
            }
            let mut valid = unknown.expected.clone();
            let own = extra
                .iter()
                .filter_map(|e| e.rsplit_once('.').or(Some(("", e))))
                .filter(|(p, _)| *p == parent)
                .map(|(_, k)| k.to_owned());
            valid.extend(own);
            let section = notation == Notation::Toml && root.is_some_and(|r| is_table(r, path));
            unknown_key(parent, &unknown.word, &valid, section)
        }
    }
}

/// The message for an unknown key `word` under `parent` (`""`: top level).
pub fn unknown_key<S: AsRef<str>>(parent: &str, word: &str, valid: &[S], section: bool) -> String {
    let full = |key: &str| {
        if parent.is_empty() {
            key.to_owned()
        } else {
            format!("{parent}.{key}")
        }
    };
    match (nearest(word, valid), section) {
        (Some(n), true) => format!(
            "unknown section `[{}]`; did you mean `[{}]`?",
            full(word),
            full(n)
        ),
        (Some(n), false) => format!("unknown key `{}`; did you mean `{n}`?", full(word)),
        (None, _) => {
            let place = if parent.is_empty() {
                "at the top level".to_owned()
            } else {
                format!("in `{parent}`")
            };
            let what = if section { "section" } else { "key" };
            format!(
                "unknown {what} `{}`; valid keys {place}: {}",
                full(word),
                one_of(valid)
            )
        }
    }
}

fn explain_value(path: &str, unknown: &Unknown) -> String {
    let word = &unknown.word;
    let mut text = format!("unknown value `{word}` for `{path}`");
    match nearest(word, &unknown.expected) {
        Some(n) => text.push_str(&format!("; did you mean `{n}`?")),
        None => text.push_str(&format!("; expected {}", one_of(&unknown.expected))),
    }
    let lower = word.to_lowercase();
    if let Some((_, _, hint)) = VALUE_HINTS
        .iter()
        .find(|(p, v, _)| *p == path && lower.starts_with(v))
    {
        text.push_str(&format!(" ({hint})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct LongTerm {
        max_return: usize,
        prefetch_limit: Option<usize>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Memory {
        long_term: LongTerm,
    }

    #[test]
    fn nearest_finds_typos_swaps_and_other_notations() {
        let keys = ["max_return", "prefetch_limit", "enabled"];
        assert_eq!(nearest("max_retrun", &keys), Some("max_return"));
        assert_eq!(nearest("prefetchLimit", &keys), Some("prefetch_limit"));
        assert_eq!(nearest("enabeld", &keys), Some("enabled"));
        assert_eq!(nearest("database_url", &keys), None);
        assert_eq!(normalize_key("prefetch-Limit"), "prefetch_limit");
    }

    #[test]
    fn an_unknown_key_names_its_path_line_and_the_nearest_key() {
        let text = "[long_term]\nmax_return = 5\nmax_retrun = 6\n";
        let err = from_toml_text::<Memory>(text).unwrap_err();
        assert!(err.contains("long_term"), "{err}");
        assert!(err.contains("max_retrun"), "{err}");
        assert!(err.contains("did you mean `max_return`"), "{err}");
        assert!(err.starts_with("line 3"), "{err}");
    }

    #[test]
    fn values_parse_and_words_are_listed_in_any_script() {
        let ok: Memory = from_toml_text("[long_term]\nmax_return = 3\n").unwrap();
        assert_eq!(ok.long_term.max_return, 3);
        assert_eq!(one_of(&["a", "b", "记忆"]), "`a`, `b` or `记忆`");
        assert_eq!(one_of::<&str>(&[]), "none");
    }
}
