use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::PromptError;

/// The variables a template is rendered with: a JSON object whose keys are
/// variable names and whose values are any JSON data (strings, numbers,
/// lists, nested objects).
///
/// Build it from pairs, maps, an iterator, or any [`Serialize`] value whose
/// JSON form is an object (a struct or a map).
///
/// # Examples
///
/// ```
/// use agcore_prompt::TemplateContext;
///
/// let ctx = TemplateContext::from([("city", "北京"), ("unit", "°C")]).with("days", 3);
/// assert_eq!(ctx.get("city").and_then(|v| v.as_str()), Some("北京"));
/// assert_eq!(ctx.len(), 3);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct TemplateContext {
    vars: Map<String, Value>,
}

impl TemplateContext {
    /// An empty context.
    pub fn new() -> Self {
        Self::default()
    }

    /// A context from any value that serializes to a JSON object (a struct
    /// deriving `Serialize`, a map with string keys, a `serde_json` object).
    ///
    /// # Errors
    /// [`PromptError::InvalidContext`] when the value cannot be serialized or
    /// is not an object.
    pub fn from_serialize<T: Serialize + ?Sized>(value: &T) -> Result<Self, PromptError> {
        match serde_json::to_value(value) {
            Ok(Value::Object(vars)) => Ok(Self { vars }),
            Ok(other) => Err(PromptError::InvalidContext(format!(
                "the root value must be an object, got {}",
                json_kind(&other)
            ))),
            Err(e) => Err(PromptError::InvalidContext(e.to_string())),
        }
    }

    /// Sets `key` to a value that converts into JSON directly (strings,
    /// numbers, booleans, `Vec`s of those, `serde_json::Value`), and returns
    /// the context for chaining.
    pub fn with(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.vars.insert(key.into(), value.into());
        self
    }

    /// Sets `key` to any serializable value, replacing an earlier value.
    ///
    /// # Errors
    /// [`PromptError::InvalidContext`] when the value cannot be serialized
    /// (for example a map with non-string keys); the context is unchanged.
    pub fn insert<T: Serialize + ?Sized>(
        &mut self,
        key: impl Into<String>,
        value: &T,
    ) -> Result<&mut Self, PromptError> {
        let value =
            serde_json::to_value(value).map_err(|e| PromptError::InvalidContext(e.to_string()))?;
        self.vars.insert(key.into(), value);
        Ok(self)
    }

    /// Copies every variable of `other` into this context; `other` wins on
    /// equal keys.
    pub fn merge(&mut self, other: TemplateContext) -> &mut Self {
        self.vars.extend(other.vars);
        self
    }

    /// The value of `key`, if set.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.vars.get(key)
    }

    /// Removes `key` and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.vars.remove(key)
    }

    /// Whether `key` is set.
    pub fn contains(&self, key: &str) -> bool {
        self.vars.contains_key(key)
    }

    /// Number of variables.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether no variable is set.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// The variables as a JSON object.
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.vars
    }

    /// The variables as a JSON object, by value.
    pub fn into_map(self) -> Map<String, Value> {
        self.vars
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl<K: Into<String>, V: Into<Value>, const N: usize> From<[(K, V); N]> for TemplateContext {
    fn from(pairs: [(K, V); N]) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<Value>> From<Vec<(K, V)>> for TemplateContext {
    fn from(pairs: Vec<(K, V)>) -> Self {
        pairs.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<Value>, S> From<HashMap<K, V, S>> for TemplateContext {
    fn from(map: HashMap<K, V, S>) -> Self {
        map.into_iter().collect()
    }
}

impl<K: Into<String>, V: Into<Value>> From<BTreeMap<K, V>> for TemplateContext {
    fn from(map: BTreeMap<K, V>) -> Self {
        map.into_iter().collect()
    }
}

impl From<Map<String, Value>> for TemplateContext {
    fn from(vars: Map<String, Value>) -> Self {
        Self { vars }
    }
}

impl<K: Into<String>, V: Into<Value>> FromIterator<(K, V)> for TemplateContext {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        Self {
            vars: iter
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        }
    }
}

impl<K: Into<String>, V: Into<Value>> Extend<(K, V)> for TemplateContext {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        self.vars
            .extend(iter.into_iter().map(|(k, v)| (k.into(), v.into())));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize)]
    struct User {
        name: String,
        tags: Vec<&'static str>,
    }

    #[test]
    fn from_struct_keeps_nested_values() {
        let ctx = TemplateContext::from_serialize(&User {
            name: "张三".into(),
            tags: vec!["a", "b"],
        })
        .unwrap();
        assert_eq!(ctx.get("name"), Some(&json!("张三")));
        assert_eq!(ctx.get("tags"), Some(&json!(["a", "b"])));
    }

    #[test]
    fn non_object_root_is_rejected() {
        let err = TemplateContext::from_serialize(&vec![1, 2]).unwrap_err();
        assert!(matches!(err, PromptError::InvalidContext(m) if m.contains("an array")));
    }

    #[test]
    fn non_string_map_keys_are_rejected_and_context_unchanged() {
        let mut ctx = TemplateContext::new().with("a", 1);
        let bad: HashMap<Vec<u8>, i32> = HashMap::from([(vec![1], 1)]);
        assert!(ctx.insert("bad", &bad).is_err());
        assert_eq!(ctx.len(), 1);
    }

    #[test]
    fn merge_overrides_and_maps_convert() {
        let mut ctx = TemplateContext::from(BTreeMap::from([("a", 1), ("b", 2)]));
        ctx.merge(TemplateContext::from(vec![("b", "x")]));
        assert_eq!(ctx.get("b"), Some(&json!("x")));
        ctx.extend([("c", true)]);
        assert!(ctx.contains("c"));
        assert_eq!(
            serde_json::to_value(&ctx).unwrap(),
            json!({"a": 1, "b": "x", "c": true})
        );
    }
}
