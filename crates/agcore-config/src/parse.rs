//! Deserializing through [`serde_path_to_error`], so every error carries
//! its key path and is explained by [`explain`].

use serde::de::DeserializeOwned;

use crate::{Notation, distance, explain, unknown_key};

/// Deserializes `T` from `table`, every error explained as [`explain`] does.
///
/// # Errors
/// The explained message of the first error.
pub fn from_table<T: DeserializeOwned>(
    table: &toml::Table,
    notation: Notation,
    extra: &[&str],
) -> Result<T, String> {
    serde_path_to_error::deserialize(toml::Value::Table(table.clone())).map_err(
        |err: serde_path_to_error::Error<toml::de::Error>| {
            let path = err.path().to_string();
            explain(&path, err.inner().message(), Some(table), notation, extra)
        },
    )
}

/// Deserializes `T` from TOML `text`: syntax errors as TOML reports them,
/// other errors explained as [`explain`] does and prefixed with their line
/// and column.
///
/// # Errors
/// The message of the first error.
pub fn from_toml_text<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    let table: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    let deserializer = toml::Deserializer::parse(text).map_err(|e| e.to_string())?;
    serde_path_to_error::deserialize(deserializer).map_err(
        |err: serde_path_to_error::Error<toml::de::Error>| {
            let path = err.path().to_string();
            let text_here = explain(
                &path,
                err.inner().message(),
                Some(&table),
                Notation::Toml,
                &[],
            );
            match err.inner().span().and_then(|s| text.get(..s.start)) {
                Some(before) => {
                    let line = before.matches('\n').count() + 1;
                    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
                    format!("line {line}, column {column}: {text_here}")
                }
                None => text_here,
            }
        },
    )
}

/// Checks the top-level keys of `table` against `valid`. With `near_only`
/// (a file shared with other components) only keys within two edits of a
/// valid one are errors (`[memroy]`); otherwise every other key is.
///
/// # Errors
/// The message for the first unknown key.
pub fn check_top_level(
    table: &toml::Table,
    valid: &[&str],
    notation: Notation,
    near_only: bool,
) -> Result<(), String> {
    for (key, value) in table {
        if valid.contains(&key.as_str()) {
            continue;
        }
        let near = valid.iter().any(|v| distance(key, v) <= 2);
        if near_only && !near {
            continue;
        }
        let section = notation == Notation::Toml && value.is_table();
        return Err(unknown_key("", key, valid, section));
    }
    Ok(())
}

/// Whether the value at dotted `path` of `root` is a table.
pub(super) fn is_table(root: &toml::Table, path: &str) -> bool {
    let mut table = root;
    let mut parts = path.split('.').peekable();
    while let Some(part) = parts.next() {
        match table.get(part) {
            Some(toml::Value::Table(_)) if parts.peek().is_none() => return true,
            Some(toml::Value::Table(inner)) => table = inner,
            _ => return false,
        }
    }
    false
}
