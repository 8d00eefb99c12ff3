//! Checks a configuration value against the JSON Schema of its Rust type:
//! every key must be one the type has (else an error suggesting the nearest),
//! then the value is deserialized with the path of any type error.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::interpolate::scrub;
use super::path::{child, nearest, one_of};
use crate::AgentError;
use crate::attach::ConfigLocation;

/// Deserializes `value` into `T` after checking its keys against `T`'s
/// schema (recursively, through nested objects, lists and options). Any
/// value listed in `secrets` is replaced by `***` in messages.
///
/// # Errors
/// [`AgentError::InvalidConfig`] at the offending path: an unknown key (with the
/// nearest valid key and the list of valid keys), a value of the wrong type,
/// an unknown variant (with the valid ones), a missing required key.
pub fn parse_config<T: DeserializeOwned + JsonSchema>(
    value: &Value,
    at: &ConfigLocation,
    secrets: &[String],
) -> Result<T, AgentError> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    let defs = schema
        .get("$defs")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    check(value, &schema, &defs, at)?;
    serde_path_to_error::deserialize::<_, T>(value.clone()).map_err(|err| {
        let inner = err.path().to_string();
        let location = if inner == "." {
            at.clone()
        } else {
            inner
                .split('.')
                .fold(at.clone(), |loc, part| split_index(&loc, part))
        };
        AgentError::invalid_config(location, scrub(&err.into_inner().to_string(), secrets))
    })
}

/// `part` of a serde path (`file_sources[0]`) appended to `at`.
fn split_index(at: &ConfigLocation, part: &str) -> ConfigLocation {
    match part.find('[') {
        Some(pos) if pos > 0 => {
            let key = part.get(..pos).unwrap_or(part);
            child(&child(at, key), part.get(pos..).unwrap_or(""))
        }
        _ => child(at, part),
    }
}

/// The object schema `node` describes, following `$ref` and the first
/// non-null branch of `anyOf` / `oneOf` / `allOf`.
fn resolve<'a>(node: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    if let Some(name) = node
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.rsplit('/').next())
        && let Some(found) = defs.get(name)
    {
        return resolve(found, defs);
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(branches) = node.get(key).and_then(Value::as_array)
            && let Some(branch) = branches.iter().find(|b| {
                b.get("properties").is_some() || b.get("$ref").is_some() || b.get("items").is_some()
            })
        {
            return resolve(branch, defs);
        }
    }
    node
}

fn check(
    value: &Value,
    node: &Value,
    defs: &Map<String, Value>,
    at: &ConfigLocation,
) -> Result<(), AgentError> {
    let node = resolve(node, defs);
    match value {
        Value::Object(map) => {
            let Some(properties) = node.get("properties").and_then(Value::as_object) else {
                return Ok(());
            };
            let free_form = node
                .get("additionalProperties")
                .is_some_and(|extra| !matches!(extra, Value::Bool(false)));
            let valid: Vec<&str> = properties.keys().map(String::as_str).collect();
            for (key, item) in map {
                match properties.get(key) {
                    Some(sub) => check(item, sub, defs, &child(at, key))?,
                    None if free_form => {}
                    None => return Err(unknown_key(key, &valid, at)),
                }
            }
            Ok(())
        }
        Value::Array(items) => {
            let Some(sub) = node.get("items") else {
                return Ok(());
            };
            for (i, item) in items.iter().enumerate() {
                check(item, sub, defs, &child(at, &format!("[{i}]")))?;
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The error for an unknown `key` under `at`.
pub fn unknown_key(key: &str, valid: &[&str], at: &ConfigLocation) -> AgentError {
    let hint = nearest(key, valid).map_or_else(String::new, |n| format!("did you mean `{n}`? "));
    AgentError::invalid_config(
        child(at, key),
        format!("unknown key `{key}`; {hint}valid keys: {}", one_of(valid)),
    )
}

#[cfg(test)]
mod tests {
    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        path: String,
        #[serde(default)]
        recursive: bool,
    }

    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        sources: Vec<Inner>,
        limit: Option<usize>,
    }

    #[test]
    fn a_valid_value_parses() {
        let value = json!({"sources": [{"path": "docs", "recursive": true}], "limit": 3});
        let parsed = parse_config::<Outer>(&value, &ConfigLocation::default(), &[]).unwrap();
        assert_eq!(
            (parsed.sources[0].path.as_str(), parsed.sources[0].recursive),
            ("docs", true)
        );
        assert_eq!(parsed.limit, Some(3));
    }

    #[test]
    fn nested_unknown_keys_are_found_with_a_suggestion() {
        let value = json!({"sources": [{"path": "a"}, {"path": "b", "recursve": true}]});
        let err =
            parse_config::<Outer>(&value, &ConfigLocation::new(None, "cfg"), &[]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "<configuration>: `cfg.sources[1].recursve`: unknown key `recursve`; did you mean `recursive`? valid keys: `path` or `recursive`"
        );
    }

    #[test]
    fn type_errors_carry_the_path_and_hide_secrets() {
        let value = json!({"sources": [{"path": "a"}], "limit": "sk-secret"});
        let err = parse_config::<Outer>(
            &value,
            &ConfigLocation::new(None, "cfg"),
            &["sk-secret".into()],
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("<configuration>: `cfg.limit`: invalid type"),
            "{text}"
        );
        assert!(
            !text.contains("sk-secret") && text.contains("***"),
            "{text}"
        );
    }
}
