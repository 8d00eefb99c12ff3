//! Every key the configuration file accepts is read by code: each key path
//! has a reader (a source file and the field access that reads it), the
//! test fails for a key with no reader and for a reader whose source no
//! longer holds the access. A key that is parsed but acted on nowhere must
//! be removed or refused instead.

use std::collections::BTreeSet;

/// (dotted key path, source file from the workspace root, text that reads it).
const READERS: &[(&str, &str, &str)] = &[
    (
        "memory.enabled",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "settings.memory.enabled",
    ),
    (
        "memory.max_history",
        "crates/agcore-agent/src/config.rs",
        "memory.max_history",
    ),
    (
        "memory.language",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "settings.memory.language",
    ),
    (
        "memory.short_term.max_items",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "short_term.max_items",
    ),
    (
        "memory.short_term.compression_threshold",
        "crates/agcore-agent/src/config.rs",
        "short_term.compression_threshold",
    ),
    (
        "memory.long_term.enabled",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "long_term.enabled",
    ),
    (
        "memory.long_term.backend",
        "crates/agcore-cli/src/config.rs",
        "long_term.backend",
    ),
    (
        "memory.long_term.path",
        "crates/agcore-cli/src/config.rs",
        "long_term.path",
    ),
    (
        "memory.long_term.max_return",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "long_term.max_return",
    ),
    (
        "memory.long_term.archive_threshold",
        "crates/agcore-memory/src/long_term/config/mod.rs",
        "archive_threshold: self.archive_threshold",
    ),
    (
        "memory.long_term.buffer_retention_days",
        "crates/agcore-memory/src/long_term/memory.rs",
        "config.buffer_retention_days",
    ),
    (
        "memory.long_term.maintenance_interval",
        "crates/agcore-memory/src/long_term/config/mod.rs",
        "self.maintenance_interval",
    ),
    (
        "memory.long_term.dedupe",
        "crates/agcore-memory/src/long_term/memory.rs",
        "config.dedupe.then_some",
    ),
    (
        "memory.long_term.dedupe_threshold",
        "crates/agcore-memory/src/long_term/memory.rs",
        "config.dedupe_threshold",
    ),
    (
        "memory.long_term.weights.initial",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".initial",
    ),
    (
        "memory.long_term.weights.min",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".min",
    ),
    (
        "memory.long_term.weights.max",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".max",
    ),
    (
        "memory.long_term.weights.reference_boost",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".reference_boost",
    ),
    (
        "memory.long_term.weights.unreferenced_decay",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".unreferenced_decay",
    ),
    (
        "memory.long_term.weights.half_life_days",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".half_life_days",
    ),
    (
        "memory.long_term.weights.core_threshold",
        "crates/agcore-memory/src/long_term/weights.rs",
        ".core_threshold",
    ),
    (
        "memory.inject.first_round_empty",
        "crates/agcore-memory/src/long_term/config/inject.rs",
        "self.first_round_empty",
    ),
    (
        "memory.inject.short_term_count",
        "crates/agcore-agent/src/turn_memory/extraction_steps.rs",
        "inject.short_term_count",
    ),
    (
        "memory.inject.long_term_trigger",
        "crates/agcore-memory/src/long_term/config/inject.rs",
        "self.long_term_trigger",
    ),
    (
        "memory.inject.trigger_keywords",
        "crates/agcore-memory/src/long_term/config/inject.rs",
        "self.trigger_keywords",
    ),
    (
        "memory.inject.min_query_length",
        "crates/agcore-memory/src/long_term/config/inject.rs",
        "self.min_query_length",
    ),
    (
        "memory.inject.token_budget",
        "crates/agcore-agent/src/turn_memory/prefetch.rs",
        "token_budget",
    ),
    (
        "memory_agent.enabled",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "agent.enabled",
    ),
    (
        "memory_agent.provider",
        "crates/agcore-cli/src/chat/memory_model.rs",
        ".provider",
    ),
    (
        "memory_agent.model",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "agent.model",
    ),
    (
        "memory_agent.api_key",
        "crates/agcore-cli/src/chat/memory_model.rs",
        ".api_key",
    ),
    (
        "memory_agent.api_key_env",
        "crates/agcore-cli/src/chat/memory_model.rs",
        ".api_key_env",
    ),
    (
        "memory_agent.base_url",
        "crates/agcore-cli/src/chat/memory_model.rs",
        ".base_url",
    ),
    (
        "memory_agent.timeout",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "agent.timeout()",
    ),
    (
        "memory_agent.extract.batch_size",
        "crates/agcore-agent/src/turn_memory/options.rs",
        "agent.extract.clone()",
    ),
    (
        "memory_agent.extract.max_facts",
        "crates/agcore-agent/src/turn_memory/extract.rs",
        "max_facts",
    ),
    (
        "memory_agent.extract.min_confidence",
        "crates/agcore-agent/src/turn_memory/extract.rs",
        "min_confidence",
    ),
    (
        "memory_agent.extract.auto_tag",
        "crates/agcore-agent/src/turn_memory/extract.rs",
        "auto_tag",
    ),
    (
        "memory_agent.extract.structured_output",
        "crates/agcore-agent/src/turn_memory/extract.rs",
        "structured_output",
    ),
    (
        "memory_agent.summarize.enabled",
        "crates/agcore-agent/src/config.rs",
        "summarize.enabled",
    ),
    (
        "memory_agent.summarize.trigger_tokens",
        "crates/agcore-agent/src/config.rs",
        "summarize.trigger_tokens",
    ),
    (
        "llm.base_url",
        "crates/agcore-cli/src/chat/endpoint.rs",
        "config.llm.base_url",
    ),
    (
        "llm.api_key",
        "crates/agcore-cli/src/chat/endpoint.rs",
        "config.llm.api_key",
    ),
    (
        "llm.model",
        "crates/agcore-cli/src/chat/endpoint.rs",
        "config.llm.model",
    ),
    (
        "llm.connect_timeout_secs",
        "crates/agcore-cli/src/chat/endpoint.rs",
        ".connect_timeout_secs",
    ),
    (
        "llm.max_tokens",
        "crates/agcore-cli/src/chat/setup.rs",
        "config.llm.max_tokens",
    ),
    (
        "providers",
        "crates/agcore-cli/src/config_agent.rs",
        "self.providers.get(provider)",
    ),
    (
        "storage.url",
        "crates/agcore-cli/src/storage.rs",
        "config.storage_url",
    ),
    (
        "agents.memory.enabled",
        "crates/agcore-memory/src/long_term/config/per_agent.rs",
        "self.enabled",
    ),
    (
        "agents.memory.backend",
        "crates/agcore-memory/src/long_term/config/per_agent.rs",
        "&self.backend",
    ),
    (
        "agents.memory.sqlite_path",
        "crates/agcore-memory/src/long_term/config/per_agent.rs",
        "&self.sqlite_path",
    ),
    (
        "agents.memory.prefetch_limit",
        "crates/agcore-memory/src/long_term/config/per_agent.rs",
        "self.prefetch_limit",
    ),
    (
        "agents.memory.language",
        "crates/agcore-memory/src/long_term/config/per_agent.rs",
        "self.language",
    ),
    (
        "agents.memory",
        "crates/agcore-cli/src/config_agent.rs",
        "&agent.memory",
    ),
    (
        "agents.provider",
        "crates/agcore-cli/src/config_agent.rs",
        "&agent.provider",
    ),
    (
        "agents.model",
        "crates/agcore-cli/src/config_agent.rs",
        "agent.model",
    ),
    (
        "agents.prompt_template",
        "crates/agcore-cli/src/chat/session.rs",
        "a.prompt_template",
    ),
    (
        "agents.memories",
        "crates/agcore-agent/src/attach/manager.rs",
        ".memories",
    ),
    (
        "agents.name",
        "crates/agcore-agent/src/attach/config.rs",
        "a.name == name",
    ),
    (
        "embedding.provider",
        "crates/agcore/src/embedding.rs",
        "match config.provider",
    ),
    (
        "embedding.model",
        "crates/agcore/src/embedding.rs",
        "&config.model",
    ),
    (
        "embedding.base_url",
        "crates/agcore/src/embedding.rs",
        "&config.base_url",
    ),
    (
        "embedding.query_style",
        "crates/agcore/src/embedding.rs",
        "config.query_style",
    ),
    (
        "embedding.model_path",
        "crates/agcore/src/embedding.rs",
        "&config.model_path",
    ),
    (
        "embedding.dimensions",
        "crates/agcore/src/embedding.rs",
        "config.dimensions",
    ),
    (
        "embedding.engine",
        "crates/agcore/src/embedding.rs",
        "config.engine",
    ),
    (
        "retrieval.mode",
        "crates/agcore-memory/src/hybrid/search.rs",
        "self.config.mode",
    ),
    (
        "retrieval.fusion",
        "crates/agcore-memory/src/hybrid/rank.rs",
        "config.fusion",
    ),
    (
        "retrieval.candidates",
        "crates/agcore-memory/src/hybrid/search.rs",
        "self.config.candidates",
    ),
    (
        "retrieval.min_similarity",
        "crates/agcore-memory/src/hybrid/rank.rs",
        "config.min_similarity",
    ),
    (
        "retrieval.half_life",
        "crates/agcore-memory/src/hybrid/rank.rs",
        "config.half_life",
    ),
    (
        "retrieval.context",
        "crates/agcore-memory/src/hybrid/search.rs",
        "&self.config.context",
    ),
    (
        "retrieval.dense_context",
        "crates/agcore-memory/src/hybrid/dense_list.rs",
        "self.config.dense_context",
    ),
    (
        "retrieval.group_evidence",
        "crates/agcore-memory/src/hybrid/search.rs",
        ".group_evidence",
    ),
    (
        "retrieval.feedback",
        "crates/agcore-memory/src/hybrid/search.rs",
        "&self.config.feedback",
    ),
    (
        "retrieval.namespace",
        "crates/agcore-memory/src/hybrid/dense_list.rs",
        "self.config.namespace",
    ),
];

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
