use std::fmt::Write as _;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::ToolError;

/// At most this many schema violations are listed in one error message.
const MAX_REPORTED: usize = 5;

/// A tool's parameter schema, compiled once.
pub(crate) struct ArgumentValidator {
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for ArgumentValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArgumentValidator").finish_non_exhaustive()
    }
}

impl ArgumentValidator {
    /// Compiles `schema` (draft detected from `$schema`, 2020-12 by default).
    /// External `$ref`s are not fetched.
    pub(crate) fn compile(tool: &str, schema: &Value) -> Result<Self, ToolError> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|e| ToolError::InvalidSchema {
                tool: tool.to_owned(),
                message: e.to_string(),
            })
    }

    /// Checks `args` against the schema.
    ///
    /// The error's `path` is the JSON Pointer of the first failing value; for
    /// a missing required or an unexpected property it points at that
    /// property (`/city`).
    /// The message lists up to five violations, each with its path.
    pub(crate) fn validate(&self, tool: &str, args: &Value) -> Result<(), ToolError> {
        let mut errors = self.validator.iter_errors(args);
        let Some(first) = errors.next() else {
            return Ok(());
        };
        let path = error_pointer(&first);
        let mut message = first.to_string();
        let mut extra = 0usize;
        for (i, e) in errors.enumerate() {
            if i + 1 < MAX_REPORTED {
                let _ = write!(message, "; at `{}`: {e}", error_pointer(&e));
            } else {
                extra += 1;
            }
        }
        if extra > 0 {
            let _ = write!(message, "; and {extra} more");
        }
        Err(ToolError::InvalidArguments {
            tool: tool.to_owned(),
            path,
            message,
        })
    }
}

/// The JSON Pointer of the failing value; for a missing required property
/// or an unexpected one, the pointer of that property.
fn error_pointer(error: &jsonschema::ValidationError<'_>) -> String {
    let mut path = error.instance_path().as_str().to_owned();
    let member = match error.kind() {
        ValidationErrorKind::Required { property } => Some(
            property
                .as_str()
                .map_or_else(|| property.to_string(), str::to_owned),
        ),
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => unexpected.first().cloned(),
        _ => None,
    };
    if let Some(name) = member {
        path.push('/');
        path.push_str(&name.replace('~', "~0").replace('/', "~1"));
    }
    path
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "days": {"type": "integer", "minimum": 0},
                "a/b": {"type": "string"},
                "items": {"type": "array", "items": {"type": "integer"}}
            },
            "required": ["city", "a/b"]
        })
    }

    #[test]
    fn valid_arguments_pass() {
        let v = ArgumentValidator::compile("t", &schema()).unwrap();
        v.validate("t", &json!({"city": "北京", "a/b": "x", "days": 2}))
            .unwrap();
    }

    #[test]
    fn nested_type_error_names_pointer() {
        let v = ArgumentValidator::compile("t", &schema()).unwrap();
        let err = v
            .validate("t", &json!({"city": "x", "a/b": "y", "items": [1, "two"]}))
            .unwrap_err();
        match err {
            ToolError::InvalidArguments {
                tool,
                path,
                message,
            } => {
                assert_eq!(tool, "t");
                assert_eq!(path, "/items/1");
                assert!(message.contains("integer"), "{message}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn missing_required_points_at_property_escaped() {
        let v = ArgumentValidator::compile("t", &schema()).unwrap();
        let err = v.validate("t", &json!({"city": "x"})).unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments { path, .. } if path == "/a~1b"));
    }

    #[test]
    fn several_errors_are_listed() {
        let v = ArgumentValidator::compile("t", &schema()).unwrap();
        let err = v.validate("t", &json!({"days": -1})).unwrap_err();
        let ToolError::InvalidArguments { message, .. } = err else {
            panic!()
        };
        assert!(message.matches("; at `").count() >= 2, "{message}");
    }

    #[test]
    fn draft07_schemas_from_mcp_servers_compile_offline() {
        let schema = json!({
            "$schema": "http://json-schema.org/draft-07/schema#",
            "type": "object",
            "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
            "required": ["a", "b"],
            "additionalProperties": false
        });
        let v = ArgumentValidator::compile("everything__add", &schema).unwrap();
        v.validate("everything__add", &json!({"a": 1, "b": 2.5}))
            .unwrap();
        let err = v
            .validate("everything__add", &json!({"a": 1, "b": 2, "c": 3}))
            .unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments { path, .. } if path == "/c"));
    }

    #[test]
    fn invalid_schema_is_reported() {
        let err = ArgumentValidator::compile("t", &json!({"type": 12})).unwrap_err();
        assert!(matches!(err, ToolError::InvalidSchema { tool, .. } if tool == "t"));
    }
}
