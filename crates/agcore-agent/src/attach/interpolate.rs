//! `${VAR}` interpolation of configuration strings from the environment, and
//! [`Secret`], a string whose value never appears in `Debug` output, logs or
//! errors.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::path::child;
use crate::AgentError;
use crate::attach::ConfigLocation;

/// Looks up environment variables: [`std::env::var`] in production, a map
/// in tests. `Send + Sync` so a loader can be shared.
pub trait VarSource: Send + Sync {
    /// The variable's value, `None` when unset (or not valid Unicode).
    fn var(&self, name: &str) -> Option<String>;
}

/// The process environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl VarSource for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl<F> VarSource for F
where
    F: Fn(&str) -> Option<String> + Send + Sync,
{
    fn var(&self, name: &str) -> Option<String> {
        self(name)
    }
}

/// Replaces every `${NAME}` in the strings of `value` (recursively) with the
/// variable's value; `$${` stays a literal `${`. `NAME` is
/// `[A-Za-z_][A-Za-z0-9_]*`. Returns the substituted values, so callers can
/// scrub them from any later message.
///
/// # Errors
/// [`AgentError::MissingVariable`] naming the first unset variable and
/// where it is referenced; [`AgentError::InvalidConfig`] for `${` without a
/// closing `}` or an invalid name.
pub fn interpolate(
    value: &mut Value,
    location: &ConfigLocation,
    vars: &dyn VarSource,
) -> Result<Vec<String>, AgentError> {
    let mut secrets = Vec::new();
    walk(value, location, vars, &mut secrets)?;
    Ok(secrets)
}

fn walk(
    value: &mut Value,
    at: &ConfigLocation,
    vars: &dyn VarSource,
    secrets: &mut Vec<String>,
) -> Result<(), AgentError> {
    match value {
        Value::String(text) if text.contains('$') => {
            *text = substitute(text, at, vars, secrets)?;
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                walk(item, &child(at, &format!("[{i}]")), vars, secrets)?;
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                walk(item, &child(at, key), vars, secrets)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn substitute(
    text: &str,
    at: &ConfigLocation,
    vars: &dyn VarSource,
    secrets: &mut Vec<String>,
) -> Result<String, AgentError> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(pos) = rest.find('$') {
        out.push_str(rest.get(..pos).unwrap_or(""));
        let after = rest.get(pos..).unwrap_or("");
        if let Some(tail) = after.strip_prefix("$${") {
            out.push_str("${");
            rest = tail;
        } else if let Some(tail) = after.strip_prefix("${") {
            let Some(end) = tail.find('}') else {
                return Err(AgentError::invalid_config(
                    at.clone(),
                    "`${` without a closing `}`; write `${NAME}`, or `$${` for a literal `${`",
                ));
            };
            let name = tail.get(..end).unwrap_or("");
            if !valid_name(name) {
                return Err(AgentError::invalid_config(
                    at.clone(),
                    format!(
                        "`${{{name}}}` is not a variable reference; names are letters, digits and `_`, not starting with a digit"
                    ),
                ));
            }
            let Some(found) = vars.var(name) else {
                return Err(AgentError::MissingVariable {
                    location: at.clone(),
                    variable: name.to_owned(),
                });
            };
            out.push_str(&found);
            if !found.is_empty() {
                secrets.push(found);
            }
            rest = tail.get(end + 1..).unwrap_or("");
        } else {
            out.push('$');
            rest = after.get(1..).unwrap_or("");
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// `message` with every substituted value replaced by `***` (longest first,
/// so a value containing another is hidden whole).
pub fn scrub(message: &str, secrets: &[String]) -> String {
    let mut sorted: Vec<&String> = secrets.iter().collect();
    sorted.sort_by_key(|s| std::cmp::Reverse(s.len()));
    sorted.into_iter().fold(message.to_owned(), |text, secret| {
        text.replace(secret.as_str(), "***")
    })
}

/// A secret string (an API key). `Debug` and `Display` print `***`;
/// [`Secret::expose`] gives the value to the code that sends it.
#[derive(Clone, PartialEq, Eq, Default, Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Self {
        Self(value.into())
    }

    /// The value, for the request that needs it. Never log it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl<'de> Deserialize<'de> for Secret {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use serde_json::json;

    use super::*;

    fn env(pairs: &[(&str, &str)]) -> impl VarSource {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name: &str| map.get(name).cloned()
    }

    #[test]
    fn variables_are_substituted_and_recorded() {
        let mut value = json!({"embedding": {"api_key": "${KEY}", "note": "a $${KEY} $x"}});
        let at = ConfigLocation::new(None, "memory.stores[0].config");
        let secrets = interpolate(&mut value, &at, &env(&[("KEY", "sk-123")])).unwrap();
        assert_eq!(value["embedding"]["api_key"], "sk-123");
        assert_eq!(value["embedding"]["note"], "a ${KEY} $x");
        assert_eq!(secrets, vec!["sk-123".to_owned()]);
        assert_eq!(
            scrub("bad value sk-123 here", &secrets),
            "bad value *** here"
        );
    }

    #[test]
    fn an_unset_variable_is_named_with_its_path() {
        let mut value = json!({"embedding": {"api_key": "${MISSING_KEY}"}});
        let at = ConfigLocation::new(
            Some(std::path::Path::new("a.yaml")),
            "memory.stores[0].config",
        );
        let err = interpolate(&mut value, &at, &env(&[])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "a.yaml: `memory.stores[0].config.embedding.api_key`: environment variable `MISSING_KEY` is not set (referenced as `${MISSING_KEY}`)"
        );
    }

    #[test]
    fn broken_references_are_errors() {
        let at = ConfigLocation::default();
        let mut open = json!("${KEY");
        assert!(
            interpolate(&mut open, &at, &env(&[]))
                .unwrap_err()
                .to_string()
                .contains("closing")
        );
        let mut bad = json!("${1X}");
        assert!(
            interpolate(&mut bad, &at, &env(&[]))
                .unwrap_err()
                .to_string()
                .contains("not a variable")
        );
    }

    #[test]
    fn secrets_never_print() {
        let secret = Secret::new("sk-live");
        assert_eq!(format!("{secret:?} {secret}"), "Secret(***) ***");
        assert_eq!(secret.expose(), "sk-live");
    }
}
