//! The layouts of the `agents` entries besides today's list: `agents` as a
//! mapping keyed by name (`[agents.NAME]`, `[agents.NAME.memory]` in TOML),
//! and seed 003's (DevAll's) `nodes:` list, whose `type: agent` nodes carry
//! their settings under `config`. Each becomes one `agents` entry value
//! (with its location) for the one checker of `load.rs`.

use serde_json::{Map, Value};

use super::path::child;
use crate::AgentError;
use crate::attach::ConfigLocation;

/// The keys of a DevAll node.
const NODE_KEYS: [&str; 4] = ["id", "type", "config", "description"];

/// The entries of `agents`: a list as written, or a mapping `name → entry`
/// (an entry's own `name`, when present, must be its key).
///
/// # Errors
/// [`AgentError::InvalidConfig`] for any other value or a mismatched `name`.
pub(super) fn agent_entries(
    value: &Value,
    at: &ConfigLocation,
) -> Result<Vec<(Value, ConfigLocation)>, AgentError> {
    match value {
        Value::Array(items) => Ok(items
            .iter()
            .enumerate()
            .map(|(i, v)| (normalized(v.clone()), child(at, &format!("[{i}]"))))
            .collect()),
        Value::Object(map) => map
            .iter()
            .map(|(name, entry)| {
                let here = child(at, name);
                let Value::Object(fields) = entry else {
                    return Err(AgentError::invalid_config(here, "must be a mapping"));
                };
                let mut fields = fields.clone();
                if let Some(Value::String(own)) = fields.get("name")
                    && own != name
                {
                    return Err(AgentError::invalid_config(
                        child(&here, "name"),
                        format!("`{own}` differs from the agent's key `{name}`; omit it"),
                    ));
                }
                fields.insert("name".to_owned(), Value::String(name.clone()));
                Ok((normalized(Value::Object(fields)), here))
            })
            .collect(),
        _ => Err(AgentError::invalid_config(
            at.clone(),
            "must be a list of agents or a mapping of agent names",
        )),
    }
}

/// The `type: agent` nodes of DevAll's `nodes:` list as `agents` entries:
/// `id` becomes `name`, the keys of `config` the entry's keys.
///
/// # Errors
/// [`AgentError::InvalidConfig`]: a node that is not a mapping, has an
/// unknown key, no string `id`, a `type` other than `agent` (agcore runs
/// agents only), or a `config` that is not a mapping.
pub(super) fn node_entries(
    value: &Value,
    at: &ConfigLocation,
) -> Result<Vec<(Value, ConfigLocation)>, AgentError> {
    let Value::Array(nodes) = value else {
        return Err(AgentError::invalid_config(at.clone(), "must be a list"));
    };
    let mut out = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let here = child(at, &format!("[{i}]"));
        let Value::Object(fields) = node else {
            return Err(AgentError::invalid_config(here, "must be a mapping"));
        };
        if let Some(key) = fields.keys().find(|k| !NODE_KEYS.contains(&k.as_str())) {
            return Err(AgentError::invalid_config(
                child(&here, key),
                format!("unknown key `{key}`; a node has `id`, `type`, `config` and `description`"),
            ));
        }
        let Some(Value::String(id)) = fields.get("id") else {
            return Err(AgentError::invalid_config(
                child(&here, "id"),
                "a node needs a string `id`",
            ));
        };
        match fields.get("type").and_then(Value::as_str) {
            Some("agent") => {}
            other => {
                return Err(AgentError::invalid_config(
                    child(&here, "type"),
                    format!(
                        "node type `{}` is not supported: agcore runs `type: agent` nodes",
                        other.unwrap_or("(none)")
                    ),
                ));
            }
        }
        let config_at = child(&here, "config");
        let mut entry = match fields.get("config") {
            None => Map::new(),
            Some(Value::Object(config)) => config.clone(),
            Some(_) => return Err(AgentError::invalid_config(config_at, "must be a mapping")),
        };
        if entry.contains_key("name") {
            return Err(AgentError::invalid_config(
                child(&config_at, "name"),
                "a node is named by its `id`; remove `name`",
            ));
        }
        entry.insert("name".to_owned(), Value::String(id.clone()));
        out.push((normalized(Value::Object(entry)), config_at));
    }
    Ok(out)
}

/// The entry with the keys of its `memory` mapping in snake_case (seed 004
/// writes `sqlitePath`, `prefetchLimit`).
fn normalized(mut entry: Value) -> Value {
    if let Some(Value::Object(memory)) = entry.get_mut("memory") {
        let keys: Vec<String> = memory.keys().cloned().collect();
        for key in keys {
            let snake = snake_case(&key);
            if snake != key
                && let Some(value) = memory.remove(&key)
            {
                memory.insert(snake, value);
            }
        }
    }
    entry
}

fn snake_case(word: &str) -> String {
    let mut out = String::with_capacity(word.len() + 4);
    for c in word.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn mappings_and_nodes_become_agent_entries() {
        let at = ConfigLocation::new(None, "agents");
        let entries = agent_entries(
            &json!({"helper": {"memory": {"sqlitePath": "h.db", "prefetchLimit": 2}}}),
            &at,
        )
        .unwrap();
        assert_eq!(
            entries[0].0,
            json!({"name": "helper", "memory": {"sqlite_path": "h.db", "prefetch_limit": 2}})
        );
        assert_eq!(entries[0].1.path, "agents.helper");
        assert!(agent_entries(&json!({"a": {"name": "b"}}), &at).is_err());
        assert!(agent_entries(&json!(3), &at).is_err());
        let nodes = json!([{"id": "answer", "type": "agent",
                            "config": {"model": "m", "prompt_template": "answer_user"}}]);
        let entries = node_entries(&nodes, &ConfigLocation::new(None, "nodes")).unwrap();
        assert_eq!(
            entries[0].0,
            json!({"name": "answer", "model": "m", "prompt_template": "answer_user"})
        );
        assert_eq!(entries[0].1.path, "nodes[0].config");
        let python = json!([{"id": "p", "type": "python"}]);
        let err = node_entries(&python, &ConfigLocation::new(None, "nodes")).unwrap_err();
        assert!(err.to_string().contains("`type: agent`"), "{err}");
        let extra = json!([{"id": "p", "type": "agent", "confg": {}}]);
        assert!(node_entries(&extra, &ConfigLocation::new(None, "nodes")).is_err());
    }
}
