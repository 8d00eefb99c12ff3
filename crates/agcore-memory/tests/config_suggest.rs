//! Unknown configuration keys name the nearest valid key with their full
//! path: examples, seed keys agcore lacks, and the property that any
//! one-character typo of a valid key is suggested as that key.
#![cfg(test)]

use std::collections::BTreeMap;

use agcore_memory::long_term::MemorySettings;
use agcore_memory::long_term::suggest::{self, Notation};
use proptest::prelude::*;

/// Every section of the memory configuration (`""` is the top level) with
/// its keys, from the serialised defaults.
fn sections() -> BTreeMap<String, Vec<String>> {
    fn walk(prefix: &str, table: &toml::Table, out: &mut BTreeMap<String, Vec<String>>) {
        out.insert(prefix.to_owned(), table.keys().cloned().collect());
        for (key, value) in table {
            if let toml::Value::Table(inner) = value {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                walk(&path, inner, out);
            }
        }
    }
    let toml::Value::Table(root) = toml::Value::try_from(MemorySettings::default()).unwrap() else {
        panic!("the settings serialise to a table");
    };
    let mut out = BTreeMap::new();
    walk("", &root, &mut out);
    out
}

fn error_of(text: &str) -> String {
    MemorySettings::from_toml_str(text).unwrap_err().to_string()
}

#[test]
fn unknown_keys_name_the_nearest_key_with_the_full_path() {
    assert_eq!(
        error_of("[memory.long_term]\nmax_retrun = 3\n"),
        "Invalid input: memory configuration: line 2, column 1: unknown key \
         `memory.long_term.max_retrun`; did you mean `max_return`?"
    );
    let err = error_of("[memory_agent.extract]\nautotag = true\n");
    assert!(
        err.contains("`memory_agent.extract.autotag`; did you mean `auto_tag`?"),
        "{err}"
    );
    let err = error_of("[memory]\nzzz = 1\n");
    assert!(
        err.contains("unknown key `memory.zzz`; valid keys in `memory`: `enabled`"),
        "{err}"
    );
}

#[test]
fn unknown_sections_are_named_as_sections() {
    let err = error_of("[memory.shortterm]\nmax_items = 3\n");
    assert!(
        err.ends_with("unknown section `[memory.shortterm]`; did you mean `[memory.short_term]`?"),
        "{err}"
    );
    let err = error_of("[memory_agent.sumarize]\nenabled = true\n");
    assert!(
        err.contains("did you mean `[memory_agent.summarize]`?"),
        "{err}"
    );
    let err = error_of("[memroy]\nenabled = true\n");
    assert_eq!(
        err,
        "Invalid input: memory configuration: unknown section `[memroy]`; did you mean `[memory]`?"
    );
    // Other components' sections stay allowed.
    assert!(MemorySettings::from_toml_str("[llm]\nmodel = \"m\"\n[metrics]\non = 1\n").is_ok());
}

#[test]
fn values_and_seed_keys_say_what_to_write() {
    let err = error_of("[memory.inject]\nlong_term_trigger = \"keyword\"\n");
    assert!(
        err.contains("unknown value `keyword` for `memory.inject.long_term_trigger`; did you mean `keywords`?"),
        "{err}"
    );
    // `mysql` names a backend of its own (its server from `[storage] url`).
    assert!(MemorySettings::from_toml_str("[memory.long_term]\nbackend = \"mysql\"\n").is_ok());
    let err = error_of("[memory.long_term]\nvector_index = true\n");
    assert!(
        err.contains("seed 002") && err.contains("[embedding]"),
        "{err}"
    );
    let err = error_of("[memory]\nprefetchLimit = 5\n");
    assert!(err.contains("memory.long_term.max_return"), "{err}");
    let err = error_of("[memory]\nsqlitePath = \"m.db\"\n");
    assert!(err.contains("memory.long_term.path"), "{err}");
    let err = error_of("[memory]\nmax_history = \"many\"\n");
    assert!(err.contains("`memory.max_history`: invalid type"), "{err}");
}

#[test]
fn nearest_and_its_limits() {
    let keys = ["max_return", "max_history", "enabled"];
    assert_eq!(suggest::nearest("maxReturn", &keys), Some("max_return"));
    assert_eq!(suggest::nearest("max-history", &keys), Some("max_history"));
    assert_eq!(suggest::nearest("enabeld", &keys), Some("enabled"));
    assert_eq!(suggest::nearest("colour", &keys), None);
    assert_eq!(suggest::nearest("enabled", &keys), None, "never itself");
    assert_eq!(suggest::one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    let parsed = suggest::parse_unknown("unknown field `x`, there are no fields").unwrap();
    assert!(parsed.expected.is_empty());
    let mut table = toml::Table::new();
    table.insert("lmm".into(), toml::Value::Table(toml::Table::new()));
    let err = suggest::check_top_level(&table, &["llm", "memory"], Notation::Plain, false);
    assert_eq!(err.unwrap_err(), "unknown key `lmm`; did you mean `llm`?");
}

/// One edit of `key`: replace, insert, delete or swap at `at`.
fn typo(key: &str, op: u8, at: usize, c: char) -> String {
    let mut chars: Vec<char> = key.chars().collect();
    let at = at % (chars.len() + 1);
    match op % 4 {
        0 if at < chars.len() => chars[at] = c,
        1 => chars.insert(at, c),
        2 if at < chars.len() => {
            chars.remove(at);
        }
        3 if at + 1 < chars.len() => chars.swap(at, at + 1),
        _ => chars.insert(at, c),
    }
    chars.into_iter().collect()
}

proptest! {
    #[test]
    fn any_one_character_typo_is_suggested_as_its_key(
        section_pick in any::<prop::sample::Index>(),
        key_pick in any::<prop::sample::Index>(),
        op in 0u8..4,
        at in 0usize..32,
        c in prop::sample::select("abcdefghijklmnopqrstuvwxyz_0123456789".chars().collect::<Vec<_>>()),
    ) {
        let sections = sections();
        let (section, keys) = *section_pick.get(&sections.iter().collect::<Vec<_>>());
        let key = key_pick.get(keys);
        let wrong = typo(key, op, at, c);
        // A typo that is another valid key, or as near to another key, has no single answer.
        let edits = suggest::distance(&wrong, key);
        prop_assume!(!keys.contains(&wrong) && !wrong.is_empty());
        prop_assume!(keys.iter().all(|k| k == key || suggest::distance(&wrong, k) > edits));
        prop_assert_eq!(suggest::nearest(&wrong, keys), Some(key.as_str()));
        // And through the parser, in the file.
        let text = if section.is_empty() {
            format!("[{wrong}]\n")
        } else {
            format!("[{section}]\n{wrong} = 0\n")
        };
        let err = error_of(&text);
        let named = if section.is_empty() {
            format!("did you mean `[{key}]`?")
        } else {
            format!("did you mean `{key}`?")
        };
        prop_assert!(err.ends_with(&named), "{}: {}", text, err);
    }
}
