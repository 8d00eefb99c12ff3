//! `docs/configuration.md` cannot rot: its TOML examples of the memory
//! sections parse with the real parser (the full example to the defaults),
//! and every key of the memory structs has a row in the section's table.
#![cfg(test)]

use std::collections::{BTreeMap, BTreeSet};

use agcore_memory::long_term::MemorySettings;

const DOC: &str = include_str!("../../../docs/configuration.md");

/// The bodies of the fenced code blocks tagged `lang`.
fn blocks(text: &str, lang: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match current.as_mut() {
            None if line.trim() == format!("```{lang}") => current = Some(String::new()),
            None => {}
            Some(_) if line.trim() == "```" => out.extend(current.take()),
            Some(body) => {
                body.push_str(line);
                body.push('\n');
            }
        }
    }
    out
}

/// Section (`memory.long_term`) → the keys of its table rows, for every
/// heading that names a section as `` `[section]` ``.
fn documented() -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section: Option<String> = None;
    for line in DOC.lines() {
        if line.starts_with('#') {
            section = line
                .split("`[")
                .nth(1)
                .and_then(|rest| rest.split("]`").next())
                .map(str::to_owned);
        } else if let (Some(section), Some(rest)) = (&section, line.strip_prefix("| `")) {
            let key = rest.split('`').next().unwrap_or_default().to_owned();
            out.entry(section.clone()).or_default().insert(key);
        }
    }
    out
}

/// Every dotted key path of the serialised default settings.
fn key_paths(prefix: &str, table: &toml::Table, out: &mut Vec<(String, String)>) {
    for (key, value) in table {
        match value {
            toml::Value::Table(inner) => {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                key_paths(&path, inner, out);
            }
            _ => out.push((prefix.to_owned(), key.clone())),
        }
    }
}

#[test]
fn memory_examples_parse_with_the_real_parser() {
    let memory_only: Vec<String> = blocks(DOC, "toml")
        .into_iter()
        .filter(|b| {
            let table: toml::Table = toml::from_str(b).unwrap();
            table
                .keys()
                .all(|k| MemorySettings::SECTIONS.contains(&k.as_str()))
        })
        .collect();
    assert!(!memory_only.is_empty(), "the document has a memory example");
    for block in &memory_only {
        MemorySettings::from_toml_str(block).unwrap_or_else(|e| panic!("{e}\n{block}"));
    }
    let full = memory_only
        .iter()
        .find(|b| b.contains("[memory_agent.summarize]"))
        .expect("an example with every section");
    assert_eq!(
        MemorySettings::from_toml_str(full).unwrap(),
        MemorySettings::default(),
        "the full example shows the defaults"
    );
    let example = include_str!("../../../config.example.toml");
    assert_eq!(
        MemorySettings::from_toml_str(example).unwrap(),
        MemorySettings::from_toml_str(full).unwrap()
    );
}

#[test]
fn every_memory_key_has_a_row() {
    let toml::Value::Table(root) = toml::Value::try_from(MemorySettings::default()).unwrap() else {
        panic!("the settings serialise to a table");
    };
    let mut paths = Vec::new();
    key_paths("", &root, &mut paths);
    assert!(paths.len() > 30, "{paths:?}");
    let documented = documented();
    let missing: Vec<String> = paths
        .iter()
        .filter(|(section, key)| {
            !documented
                .get(section)
                .is_some_and(|keys| keys.contains(key))
        })
        .map(|(section, key)| format!("{section}.{key}"))
        .collect();
    assert!(
        missing.is_empty(),
        "keys without a row in docs/configuration.md: {missing:?}"
    );
}
