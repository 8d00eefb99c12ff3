//! The JSON Schema of the attachment configuration (the Rust counterpart of
//! seed 003's `field_specs()`, for UIs and `agcore config schema`).

use serde_json::{Value, json};

use super::config::AttachConfig;
use super::registry::MemoryStoreRegistry;

/// The schema of [`AttachConfig`] with the built-in store types' `config`
/// schemas: [`MemoryStoreRegistry::schema`] of
/// [`MemoryStoreRegistry::with_builtins`].
pub fn schema() -> Value {
    MemoryStoreRegistry::with_builtins().schema()
}

impl MemoryStoreRegistry {
    /// The schema of [`AttachConfig`] in which a store declaration is one
    /// of the registered types: `{"name", "type": {"const": T}, "config": <T's schema>}`,
    /// each with the type's summary as its description.
    pub fn schema(&self) -> Value {
        let mut root =
            serde_json::to_value(schemars::schema_for!(AttachConfig)).unwrap_or(Value::Null);
        let mut variants = Vec::new();
        for type_name in self.types() {
            let mut config = self
                .config_schema(type_name)
                .cloned()
                .unwrap_or(Value::Bool(true));
            let defs = config.as_object_mut().and_then(|c| c.remove("$defs"));
            if let (Some(Value::Object(defs)), Some(Value::Object(root_defs))) =
                (defs, root.get_mut("$defs"))
            {
                root_defs.extend(defs);
            }
            if let Some(map) = config.as_object_mut() {
                map.remove("$schema");
            }
            variants.push(json!({
                "type": "object",
                "description": self.summary(type_name).unwrap_or(""),
                "properties": {
                    "name": {"type": "string", "minLength": 1},
                    "type": {"const": type_name},
                    "config": config,
                },
                "required": ["name", "type"],
                "additionalProperties": false,
            }));
        }
        if let Some(defs) = root.get_mut("$defs").and_then(Value::as_object_mut) {
            defs.insert("StoreDeclaration".to_owned(), json!({"oneOf": variants}));
        }
        root
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_names_every_builtin_type() {
        let schema = schema();
        let variants = schema["$defs"]["StoreDeclaration"]["oneOf"]
            .as_array()
            .unwrap();
        let types: Vec<&str> = variants
            .iter()
            .map(|v| v["properties"]["type"]["const"].as_str().unwrap())
            .collect();
        assert_eq!(types, vec!["blackboard", "file", "simple"]);
        assert!(schema["$defs"]["AttachmentConfig"]["properties"]["top_k"].is_object());
        assert!(variants[2]["properties"]["config"]["properties"]["memory_path"].is_object());
    }
}
