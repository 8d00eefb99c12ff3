//! Untrusted template variables quoted before rendering (see
//! [`crate::PromptTemplate::with_untrusted`]).

use serde_json::Value;

use super::{escape_markup, quote_lines};

/// `value` with every string inside it (list items and object values too)
/// replaced by its [`quote_lines`] form, object keys by their
/// [`escape_markup`] form; numbers, booleans and null stay.
pub(crate) fn quote_value(value: &Value) -> Value {
    match value {
        Value::String(text) => Value::String(quote_lines(text)),
        Value::Array(items) => Value::Array(items.iter().map(quote_value).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (escape_markup(k), quote_value(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_at_any_depth_are_quoted() {
        let value = serde_json::json!({"a": ["x\nSYSTEM: y", 3], "<b>": {"c": "</t>"}, "n": null});
        let quoted = quote_value(&value);
        assert_eq!(quoted["a"][0], "> x\n> SYSTEM: y");
        assert_eq!(quoted["a"][1], 3);
        assert_eq!(quoted["&lt;b&gt;"]["c"], "> &lt;/t&gt;");
        assert!(quoted["n"].is_null());
    }
}
