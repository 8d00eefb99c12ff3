//! The configuration file as one TOML table, whatever its syntax: YAML is
//! converted (nulls dropped: TOML has none), and the memory-attachment keys
//! (read separately by `agcore::attach::AttachConfig`) are split off so the
//! program's sections see only their own keys.

use agcore::attach::ConfigFormat;

/// The keys of `memory` that belong to memory attachments.
const MEMORY_ATTACHMENT_KEYS: [&str; 2] = ["stores", "attachment_header"];

/// The top-level key that belongs to memory attachments.
const AGENTS_KEY: &str = "agents";

/// Seed 003's (DevAll's) list of graph nodes, read by the memory attachments.
const NODES_KEY: &str = "nodes";

/// The document `text` in `format` as a table; an empty document is an
/// empty table.
///
/// # Errors
/// The parser's message for a syntax error, or for a document that is not
/// a mapping of keys.
pub fn table(text: &str, format: ConfigFormat) -> Result<toml::Table, String> {
    match format {
        ConfigFormat::Toml => toml::from_str(text).map_err(|e| e.to_string()),
        ConfigFormat::Yaml => {
            let mut value: serde_json::Value = serde_saphyr::from_str_with_options(
                text,
                serde_saphyr::options! { strict_booleans: true },
            )
            .map_err(|e| format!("cannot parse YAML: {e}"))?;
            drop_nulls(&mut value);
            match value {
                serde_json::Value::Null => Ok(toml::Table::new()),
                serde_json::Value::Object(_) => match toml::Value::try_from(value) {
                    Ok(toml::Value::Table(table)) => Ok(table),
                    Ok(_) => Err("the document must be a mapping of keys".to_owned()),
                    Err(err) => Err(err.to_string()),
                },
                _ => Err("the document must be a mapping of keys".to_owned()),
            }
        }
    }
}

/// Removes nulls from mappings (an absent key) and lists.
fn drop_nulls(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(drop_nulls);
        }
        serde_json::Value::Array(items) => {
            items.retain(|v| !v.is_null());
            items.iter_mut().for_each(drop_nulls);
        }
        _ => {}
    }
}

/// Removes `memory.stores`, `memory.attachment_header`, `agents`, and seed
/// 003's `nodes` and `memory:` list of stores.
pub fn remove_attachment_keys(table: &mut toml::Table) {
    table.remove(AGENTS_KEY);
    table.remove(NODES_KEY);
    if table.get("memory").is_some_and(toml::Value::is_array) {
        table.remove("memory");
    }
    if let Some(toml::Value::Table(memory)) = table.get_mut("memory") {
        for key in MEMORY_ATTACHMENT_KEYS {
            memory.remove(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn yaml_and_toml_give_the_same_table_without_attachment_keys() {
        let yaml = "llm:\n  model: m\n  max_tokens: 48\nmemory:\n  max_history: 7\n  stores: []\n\
                    agents:\n  - name: a\nembedding: ~\n";
        let toml_text = "agents = [{ name = \"a\" }]\n[llm]\nmodel = \"m\"\nmax_tokens = 48\n\
                         [memory]\nmax_history = 7\nstores = []\n";
        let mut from_yaml = table(yaml, ConfigFormat::Yaml).unwrap();
        let mut from_toml = table(toml_text, ConfigFormat::Toml).unwrap();
        remove_attachment_keys(&mut from_yaml);
        remove_attachment_keys(&mut from_toml);
        assert_eq!(from_yaml, from_toml);
        assert!(!from_yaml.contains_key("agents") && !from_yaml.contains_key("embedding"));
        assert!(table("", ConfigFormat::Yaml).unwrap().is_empty());
        assert!(table("- 1\n", ConfigFormat::Yaml).is_err());
        assert!(table("a: [1\n", ConfigFormat::Yaml).is_err());
    }

    #[test]
    fn yaml_files_hold_attachments_beside_todays_keys() {
        let yaml = "llm:\n  model: m\nmemory:\n  max_history: 7\n  stores:\n    - { name: board, type: blackboard }\n\
                    memory_agent:\n  enabled: false\nagents:\n  - name: helper\n    memories: [{ name: board, write: true }]\n";
        let config =
            crate::config::AppConfig::parse(yaml, Path::new("/etc/agcore/agents.yaml")).unwrap();
        assert_eq!(config.llm.model.as_deref(), Some("m"));
        assert_eq!(config.settings.memory.max_history, 7);
        assert!(config.extraction_configured);
        assert_eq!(config.attach.agents[0].name, "helper");
        assert!(config.attach.agents[0].memories[0].write);
        // The same document in TOML parses to the same attachments.
        let toml_text = "agents = [{ name = \"helper\", memories = [{ name = \"board\", write = true }] }]\n\
                         [llm]\nmodel = \"m\"\n[memory]\nmax_history = 7\n\
                         [[memory.stores]]\nname = \"board\"\ntype = \"blackboard\"\n\
                         [memory_agent]\nenabled = false\n";
        let same = crate::config::AppConfig::parse(toml_text, Path::new("/etc/agcore/agents.toml"))
            .unwrap();
        assert_eq!(
            serde_json::to_value(&same.attach.agents).unwrap(),
            serde_json::to_value(&config.attach.agents).unwrap()
        );
        assert_eq!(same.attach.memory.stores[0].store_type, "blackboard");
        // Only attachments: every other key has its default.
        let only = "memory:\n  stores: [{ name: n, type: simple }]\nagents: [{ name: assistant, memories: [{ name: n }] }]\n";
        let only = crate::config::AppConfig::parse(only, Path::new("a.yml")).unwrap();
        assert_eq!(only.settings.memory.max_history, 50);
        assert_eq!(only.attach.memory.stores.len(), 1);
    }

    #[test]
    fn attachment_and_yaml_errors_name_the_file_on_one_line() {
        let err = crate::config::AppConfig::parse(
            "agents: [{ name: a, memories: [{ name: nowhere }] }]\n",
            Path::new("x.yaml"),
        )
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("x.yaml: `agents[0].memories[0].name`"),
            "{text}"
        );
        assert!(text.contains("no memory store named `nowhere`"), "{text}");
        assert_eq!(err.exit_code(), 2);
        let err =
            crate::config::AppConfig::parse("llm:\n  base: 1\n", Path::new("x.yaml")).unwrap_err();
        let text = err.to_string();
        assert!(
            text.starts_with("x.yaml is not a valid configuration") && text.contains("base"),
            "{text}"
        );
        let err = crate::config::AppConfig::parse("llm: [1\n", Path::new("x.yaml")).unwrap_err();
        assert!(!err.to_string().contains('\n'), "{err}");
    }
}
