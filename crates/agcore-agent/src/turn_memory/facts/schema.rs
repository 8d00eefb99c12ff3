//! [`facts_json_schema`]: the JSON Schema of a fact-extraction reply, sent as
//! `response_format` so that servers with constrained decoding return
//! exactly that shape.

use serde_json::{Value, json};

/// Longest `content` string the schema allows, in characters:
/// a bound that also stops a small model from running on inside one string.
pub const MAX_FACT_CHARS: usize = 400;

/// The JSON Schema (draft 2020-12 subset understood by OpenAI structured
/// outputs, llama.cpp and llama-cpp-python grammars, and vLLM) of the reply
/// [`parse_facts`](super::parse_facts) reads: `{"facts": [{"content",
/// "type", "tags", "confidence", "replace"}]}` with at most `max_facts`
/// facts (at least 1). Every property is required and `replace` is a
/// memory id (an integer) or `null`, as OpenAI's strict mode asks; `type`
/// also offers the finer `preference` and `fact` (stored as `user`).
///
/// # Examples
/// ```
/// let schema = agcore_agent::turn_memory::facts_json_schema(5);
/// assert_eq!(schema["properties"]["facts"]["maxItems"], 5);
/// ```
pub fn facts_json_schema(max_facts: usize) -> Value {
    let text = json!({"type": "string", "minLength": 1, "maxLength": MAX_FACT_CHARS});
    json!({
        "type": "object",
        "properties": {
            "facts": {
                "type": "array",
                "maxItems": max_facts.max(1),
                "items": {
                    "type": "object",
                    "properties": {
                        "content": text,
                        "type": {"type": "string", "enum": ["user", "preference", "fact", "project", "feedback", "reference"]},
                        "tags": {"type": "array", "items": {"type": "string", "maxLength": 40}, "maxItems": 5},
                        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                        "replace": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
                    },
                    "required": ["content", "type", "tags", "confidence", "replace"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["facts"],
        "additionalProperties": false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_of_the_schema_parses() {
        let schema = facts_json_schema(0);
        assert_eq!(schema["properties"]["facts"]["maxItems"], 1);
        let item = &schema["properties"]["facts"]["items"];
        let required: Vec<&str> = item["required"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .collect();
        let properties: Vec<&String> = item["properties"].as_object().unwrap().keys().collect();
        assert_eq!(
            required.len(),
            properties.len(),
            "strict mode: all required"
        );
        let reply = r#"{"facts": [{"content": "Lives in Lyon", "type": "user", "tags": [], "confidence": 0.9, "replace": null}]}"#;
        let parsed = super::super::parse_facts(reply).unwrap();
        assert_eq!(parsed.facts.len(), 1);
    }
}
