use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::{JsonObject, TypesError};

/// A tool call requested by the model:
/// `{"id": "call_…", "type": "function", "function": {"name": "…", "arguments": "{…}"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Call id; the tool result message must carry it as `tool_call_id`.
    pub id: String,
    /// Always `"function"` in the current API.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function name and its raw JSON arguments.
    pub function: FunctionCall,
    /// Fields not named above, in their original order.
    #[serde(flatten)]
    pub extra: JsonObject,
}

pub(crate) fn function_type() -> String {
    "function".to_owned()
}

/// The function part of a tool call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    /// Function name, as given in the tool definition.
    pub name: String,
    /// Arguments as the raw JSON text the model produced (may be invalid JSON).
    pub arguments: String,
}

impl ToolCall {
    /// A function tool call.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            kind: function_type(),
            function: FunctionCall {
                name: name.into(),
                arguments: arguments.into(),
            },
            extra: JsonObject::new(),
        }
    }

    /// The function name.
    pub fn name(&self) -> &str {
        &self.function.name
    }

    /// Parses the raw arguments into `T`.
    ///
    /// An empty arguments string is read as `{}` (some servers send `""` for
    /// functions without parameters).
    ///
    /// # Errors
    /// [`TypesError::InvalidToolArguments`] when the text is not JSON or does not fit `T`.
    pub fn parse_arguments<T: DeserializeOwned>(&self) -> Result<T, TypesError> {
        let raw = self.function.arguments.trim();
        let raw = if raw.is_empty() { "{}" } else { raw };
        serde_json::from_str(raw).map_err(|source| TypesError::InvalidToolArguments {
            tool: self.function.name.clone(),
            source,
        })
    }

    /// Parses the raw arguments as a JSON value.
    ///
    /// # Errors
    /// [`TypesError::InvalidToolArguments`] when the text is not JSON.
    pub fn arguments_json(&self) -> Result<serde_json::Value, TypesError> {
        self.parse_arguments()
    }
}

/// A tool the model may call:
/// `{"type": "function", "function": {"name", "description", "parameters", "strict"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Always `"function"` in the current API.
    #[serde(rename = "type", default = "function_type")]
    pub kind: String,
    /// The function's name, description and parameter schema.
    pub function: FunctionDefinition,
}

/// The function part of a tool definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FunctionDefinition {
    /// Name the model calls the function by (`^[a-zA-Z0-9_-]{1,64}$` on OpenAI).
    pub name: String,
    /// What the function does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<serde_json::Value>,
    /// Structured-outputs strict mode (the model's arguments then match the schema exactly).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

impl ToolDefinition {
    /// A function tool definition with a JSON Schema for its arguments.
    pub fn function(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: serde_json::Value,
    ) -> Self {
        Self {
            kind: function_type(),
            function: FunctionDefinition {
                name: name.into(),
                description: Some(description.into()),
                parameters: Some(parameters),
                strict: None,
            },
        }
    }

    /// Sets the `strict` flag.
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.function.strict = Some(strict);
        self
    }

    /// The function name.
    pub fn name(&self) -> &str {
        &self.function.name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize, PartialEq)]
    struct Args {
        city: String,
    }

    #[test]
    fn parses_typed_arguments() {
        let call = ToolCall::new("c", "weather", r#"{"city":"上海"}"#);
        assert_eq!(
            call.parse_arguments::<Args>().unwrap(),
            Args {
                city: "上海".into()
            }
        );
    }

    #[test]
    fn bad_json_is_a_recoverable_error_naming_the_tool() {
        let call = ToolCall::new("c", "weather", r#"{"city": "上海""#);
        let err = call.parse_arguments::<Args>().unwrap_err();
        assert!(err.is_recoverable());
        let TypesError::InvalidToolArguments { tool, .. } = &err;
        assert_eq!(tool, "weather");
        assert!(err.to_string().contains("weather"));
    }

    #[test]
    fn wrong_shape_is_an_error() {
        let call = ToolCall::new("c", "weather", r#"{"town":"x"}"#);
        assert!(call.parse_arguments::<Args>().is_err());
    }

    #[test]
    fn empty_arguments_read_as_empty_object() {
        let call = ToolCall::new("c", "now", "");
        assert_eq!(call.arguments_json().unwrap(), serde_json::json!({}));
    }
}
