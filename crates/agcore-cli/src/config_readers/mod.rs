//! Every key the configuration file accepts is read by code: each key path
//! has a reader (a source file and the field access that reads it), the
//! test fails for a key with no reader and for a reader whose source no
//! longer holds the access. A key that is parsed but acted on nowhere must
//! be removed or refused instead.

use std::collections::BTreeSet;

mod readers;

use readers::READERS;

/// The workspace root.
fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every leaf key path of a serialised value (lists are leaves).
fn leaves(prefix: &str, value: &serde_json::Value, out: &mut BTreeSet<String>) {
    match value {
        serde_json::Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                leaves(&path, inner, out);
            }
        }
        _ => {
            out.insert(prefix.to_owned());
        }
    }
}

/// The key paths the program parses: every memory key, the agents' keys,
/// the `[llm]` / `[storage]` / `[providers]` sections and the keys of
/// `[embedding]` and `[retrieval]`.
fn parsed_keys() -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let settings = serde_json::to_value(agcore::memory::long_term::MemorySettings::default())
        .expect("settings serialise");
    leaves("", &settings, &mut keys);
    let agent = serde_json::to_value(agcore::attach::AgentMemories {
        memory: Some(agcore::memory::long_term::AgentMemoryConfig::default()),
        ..agcore::attach::AgentMemories::new("a")
    })
    .expect("agent serialises");
    let mut agent_keys = BTreeSet::new();
    leaves("agents", &agent, &mut agent_keys);
    keys.extend(agent_keys);
    for key in [
        "base_url",
        "api_key",
        "model",
        "connect_timeout_secs",
        "max_tokens",
    ] {
        keys.insert(format!("llm.{key}"));
    }
    let embedding = serde_json::to_value(agcore::embedding::EmbeddingConfig::default())
        .expect("embedding settings serialise");
    leaves("embedding", &embedding, &mut keys);
    let retrieval = serde_json::to_value(agcore::memory::hybrid::HybridConfig::default())
        .expect("retrieval settings serialise");
    // The sub-tables (`[retrieval.fusion]`, `[retrieval.dense_context]`, …)
    // are typed values read whole by the code that takes the key.
    if let Some(table) = retrieval.as_object() {
        keys.extend(table.keys().map(|k| format!("retrieval.{k}")));
    }
    keys.insert("storage.url".to_owned());
    keys.insert("providers".to_owned());
    keys
}

#[test]
fn every_parsed_key_has_a_reader() {
    let read: BTreeSet<String> = READERS.iter().map(|(k, _, _)| (*k).to_owned()).collect();
    let unread: Vec<String> = parsed_keys()
        .into_iter()
        .filter(|k| !read.contains(k))
        .collect();
    assert!(
        unread.is_empty(),
        "keys parsed with no reader listed (make them act, or refuse them): {unread:?}"
    );
}

#[test]
fn every_reader_still_reads_its_key() {
    for (key, file, needle) in READERS {
        let text = std::fs::read_to_string(root().join(file))
            .unwrap_or_else(|e| panic!("{key}: cannot read {file}: {e}"));
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let code = code.split("#[cfg(test)]").next().unwrap_or(&code);
        assert!(
            code.contains(needle),
            "`{key}`: {file} no longer reads it (`{needle}` outside comments and tests)"
        );
    }
}
