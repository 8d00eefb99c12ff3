//! Memory-attachment configuration: YAML and TOML give the same structures,
//! and every configuration error names the file, the path and what is valid.
#![cfg(test)]

use std::collections::HashMap;
use std::path::Path;

use agcore_agent::AgentError;
use agcore_agent::attach::{
    AttachConfig, ConfigFormat, MemoryStoreRegistry, Stage, StoreContext, VarSource,
};

const YAML: &str = r#"
llm:
  model: kept-for-the-rest-of-the-file
memory:
  attachment_header: "===== Relevant memories ====="
  long_term: { enabled: true }
  stores:
    - name: convo_cache
      type: simple
      config:
        memory_path: simple.json
        embedding:
          provider: openai
          model: text-embedding-3-small
          api_key: ${API_KEY}
    - name: board
      type: blackboard
      config:
        max_items: 10
agents:
  - name: assistant
    memories:
      - name: convo_cache
        retrieve_stage: [gen]
        top_k: 5
        read: true
        write: true
      - name: board
"#;

const TOML: &str = r#"
[llm]
model = "kept-for-the-rest-of-the-file"

[memory]
attachment_header = "===== Relevant memories ====="
long_term = { enabled = true }

[[memory.stores]]
name = "convo_cache"
type = "simple"
[memory.stores.config]
memory_path = "simple.json"
embedding = { provider = "openai", model = "text-embedding-3-small", api_key = "${API_KEY}" }

[[memory.stores]]
name = "board"
type = "blackboard"
config = { max_items = 10 }

[[agents]]
name = "assistant"

[[agents.memories]]
name = "convo_cache"
retrieve_stage = ["gen"]
top_k = 5
read = true
write = true

[[agents.memories]]
name = "board"
"#;

fn vars(pairs: &[(&str, &str)]) -> impl VarSource + use<> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn yaml_err(text: &str) -> String {
    match AttachConfig::parse(text, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))) {
        Ok(config) => match MemoryStoreRegistry::with_builtins().validate(&config, &vars(&[])) {
            Ok(()) => String::from("no error"),
            Err(err) => err.to_string(),
        },
        Err(err) => err.to_string(),
    }
}

#[test]
fn yaml_and_toml_parse_to_the_same_structures() {
    let yaml = AttachConfig::parse(YAML, ConfigFormat::Yaml, None).unwrap();
    let toml = AttachConfig::parse(TOML, ConfigFormat::Toml, None).unwrap();
    assert_eq!(yaml, toml);
    assert_eq!(yaml.memory.stores.len(), 2);
    assert_eq!(yaml.memory.stores[1].location.path, "memory.stores[1]");
    let agent = yaml.agent("assistant").unwrap();
    assert_eq!(agent.memories[0].retrieve_stage, Some(vec![Stage::Gen]));
    assert_eq!(agent.memories[0].top_k, 5);
    let defaults = &agent.memories[1];
    assert_eq!((defaults.top_k, defaults.similarity_threshold), (3, -1.0));
    assert!(defaults.read && !defaults.write && defaults.retrieve_stage.is_none());
    assert!(Stage::ALL.iter().all(|s| defaults.retrieves_at(*s)));
    assert!(!agent.memories[0].retrieves_at(Stage::Pre));
    let registry = MemoryStoreRegistry::with_builtins();
    registry
        .validate(&yaml, &vars(&[("API_KEY", "sk-test")]))
        .unwrap();
}

#[test]
fn the_format_follows_the_extension() {
    assert_eq!(
        ConfigFormat::from_path(Path::new("a.YML")).unwrap(),
        ConfigFormat::Yaml
    );
    assert_eq!(
        ConfigFormat::from_path(Path::new("a.toml")).unwrap(),
        ConfigFormat::Toml
    );
    let err = ConfigFormat::from_path(Path::new("a.json")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a.json: unknown configuration format; use a `.yaml`, `.yml` or `.toml` file"
    );
}

#[test]
fn a_duplicate_store_name_names_both_places() {
    let text = "memory:\n  stores:\n    - {name: a, type: simple}\n    - {name: b, type: simple}\n    - {name: a, type: blackboard}\n";
    assert_eq!(
        yaml_err(text),
        "agents.yaml: `memory.stores[2]`: duplicate memory store name `a` (first declared at `memory.stores[0]`); store names must be unique"
    );
    let toml = "[[memory.stores]]\nname = \"a\"\ntype = \"simple\"\n[[memory.stores]]\nname = \"a\"\ntype = \"simple\"\n";
    let err =
        AttachConfig::parse(toml, ConfigFormat::Toml, Some(Path::new("agcore.toml"))).unwrap_err();
    assert!(matches!(err, AgentError::DuplicateStore { .. }));
    assert!(
        err.to_string()
            .starts_with("agcore.toml: `memory.stores[1]`: duplicate")
    );
}

#[test]
fn an_attachment_must_name_a_declared_store() {
    let text = "memory:\n  stores:\n    - {name: notes, type: simple}\n    - {name: board, type: blackboard}\nagents:\n  - name: assistant\n    memories:\n      - name: nots\n";
    assert_eq!(
        yaml_err(text),
        "agents.yaml: `agents[0].memories[0].name`: no memory store named `nots`; declared stores: `notes` or `board`"
    );
    let none = "agents:\n  - name: assistant\n    memories: [{name: x}]\n";
    assert_eq!(
        yaml_err(none),
        "agents.yaml: `agents[0].memories[0].name`: no memory store named `x`; no store is declared under `memory.stores`"
    );
}

#[test]
fn an_unknown_type_lists_the_registered_ones() {
    let text = "memory:\n  stores:\n    - {name: notes, type: vectordb}\n";
    assert_eq!(
        yaml_err(text),
        "agents.yaml: `memory.stores[0].type`: unknown memory store type `vectordb`; registered types: `blackboard`, `file` or `simple`"
    );
}

#[test]
fn unknown_keys_suggest_the_nearest() {
    let attachment = "memory:\n  stores: [{name: n, type: simple}]\nagents:\n  - name: a\n    memories: [{name: n, top_kk: 2}]\n";
    assert_eq!(
        yaml_err(attachment),
        "agents.yaml: `agents[0].memories[0].top_kk`: unknown key `top_kk`; did you mean `top_k`? valid keys: `name`, `retrieve_stage`, `top_k`, `similarity_threshold`, `read` or `write`"
    );
    let store = "memory:\n  stores:\n    - name: n\n      type: simple\n      config: {memory_pth: x.json}\n";
    let err = yaml_err(store);
    assert!(
        err.starts_with("agents.yaml: `memory.stores[0].config.memory_pth`: unknown key `memory_pth`; did you mean `memory_path`?"),
        "{err}"
    );
    let nested = "memory:\n  stores:\n    - name: n\n      type: simple\n      config:\n        embedding: {provider: openai, modle: m}\n";
    let err = yaml_err(nested);
    assert!(
        err.contains(
            "`memory.stores[0].config.embedding.modle`: unknown key `modle`; did you mean `model`?"
        ),
        "{err}"
    );
    let declaration = "memory:\n  stores:\n    - {name: n, typ: simple}\n";
    assert!(
        yaml_err(declaration)
            .contains("`memory.stores[0].typ`: unknown key `typ`; did you mean `type`?")
    );
}

#[test]
fn wrong_values_name_what_is_valid() {
    let stage = "memory:\n  stores: [{name: n, type: simple}]\nagents:\n  - name: a\n    memories: [{name: n, retrieve_stage: [gen, generate]}]\n";
    let err = yaml_err(stage);
    assert!(err.starts_with("agents.yaml: `agents[0].memories[0].retrieve_stage[1]`: unknown variant `generate`, expected one of `pre`, `plan`, `gen`, `critique`"), "{err}");
    let top_k = "memory:\n  stores: [{name: n, type: simple}]\nagents:\n  - name: a\n    memories: [{name: n, top_k: 0}]\n";
    assert_eq!(
        yaml_err(top_k),
        "agents.yaml: `agents[0].memories[0].top_k`: must be at least 1"
    );
    let threshold = "memory:\n  stores: [{name: n, type: simple}]\nagents:\n  - name: a\n    memories: [{name: n, similarity_threshold: 2}]\n";
    assert_eq!(
        yaml_err(threshold),
        "agents.yaml: `agents[0].memories[0].similarity_threshold`: 2 is outside [-1, 1] (-1 keeps every item)"
    );
    let provider = "memory:\n  stores:\n    - {name: n, type: simple, config: {embedding: {provider: cohere}}}\n";
    let err = yaml_err(provider);
    assert!(err.contains("`memory.stores[0].config.embedding.provider`: unknown variant `cohere`, expected one of `openai`, `local`, `onnx`, `hashing`"), "{err}");
}

#[test]
fn syntax_errors_name_the_file_and_format() {
    let err = AttachConfig::parse(
        "memory: [\n",
        ConfigFormat::Yaml,
        Some(Path::new("bad.yaml")),
    )
    .unwrap_err();
    assert!(
        err.to_string().starts_with("bad.yaml: cannot parse YAML:"),
        "{err}"
    );
    let err = AttachConfig::parse("[memory\n", ConfigFormat::Toml, Some(Path::new("bad.toml")))
        .unwrap_err();
    assert!(
        err.to_string().starts_with("bad.toml: cannot parse TOML:"),
        "{err}"
    );
}

#[test]
fn an_unset_variable_is_named_and_a_set_one_never_shows() {
    let config =
        AttachConfig::parse(YAML, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))).unwrap();
    let registry = MemoryStoreRegistry::with_builtins();
    let err = registry.validate(&config, &vars(&[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "agents.yaml: `memory.stores[0].config.embedding.api_key`: environment variable `API_KEY` is not set (referenced as `${API_KEY}`)"
    );
    // The configuration holds the reference, never the value.
    assert!(format!("{config:?}").contains("${API_KEY}"));
    // A value that fails to parse is scrubbed from the message.
    let text = "memory:\n  stores:\n    - {name: n, type: blackboard, config: {max_items: \"${LIMIT}\"}}\n";
    let config = AttachConfig::parse(text, ConfigFormat::Yaml, None).unwrap();
    let err = registry
        .validate(&config, &vars(&[("LIMIT", "sk-very-secret")]))
        .unwrap_err();
    let text = format!("{err} {err:?}");
    assert!(
        text.contains("`memory.stores[0].config.max_items`") && !text.contains("sk-very-secret"),
        "{text}"
    );
}

#[tokio::test]
async fn an_unwritable_path_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let blocker = dir.path().join("not-a-folder");
    std::fs::write(&blocker, "x").unwrap();
    let text = format!(
        "memory:\n  stores:\n    - name: n\n      type: simple\n      config: {{memory_path: {}}}\n",
        blocker.join("memory.json").display()
    );
    let config =
        AttachConfig::parse(&text, ConfigFormat::Yaml, Some(Path::new("agents.yaml"))).unwrap();
    let registry = MemoryStoreRegistry::with_builtins();
    let err = registry
        .open(&config.memory.stores[0], &StoreContext::default())
        .await
        .unwrap_err();
    assert!(matches!(err, AgentError::Unwritable { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.starts_with("agents.yaml: `memory.stores[0].config.memory_path`: cannot write `"),
        "{message}"
    );
    assert!(!err.is_recoverable());
    let auto =
        "memory:\n  stores:\n    - {name: n, type: blackboard, config: {memory_path: auto}}\n";
    let config = AttachConfig::parse(auto, ConfigFormat::Yaml, None).unwrap();
    let err = registry
        .open(&config.memory.stores[0], &StoreContext::default())
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("`auto` needs a session directory"),
        "{err}"
    );
}
