//! The configuration types: stores declared under `memory.stores`,
//! attachments under `agents[].memories` (seed 003's `memory[]` list and
//! `MemoryAttachmentConfig`).

use std::path::PathBuf;

use agcore_memory::long_term::AgentMemoryConfig;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::location::ConfigLocation;

/// A stage of an agent's turn at which attached memories are retrieved
/// (seed 003's `AgentExecFlowStage`). See `docs/memory-attachments.md`,
/// *Stages*, for where each one happens in agcore.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// Before the turn: the user's message is known, nothing has run.
    Pre,
    /// When a [`crate::TaskAgent`] asks the model for a plan.
    Plan,
    /// Generation: the model call that answers (each step of a plan too).
    Gen,
    /// A review step that critiques a draft answer.
    Critique,
}

impl Stage {
    /// Every stage, in turn order.
    pub const ALL: [Stage; 4] = [Stage::Pre, Stage::Plan, Stage::Gen, Stage::Critique];

    /// The configuration word: `pre`, `plan`, `gen`, `critique`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pre => "pre",
            Self::Plan => "plan",
            Self::Gen => "gen",
            Self::Critique => "critique",
        }
    }
}

/// One store in `memory.stores`: a name, a registered type and the type's
/// own settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StoreDeclaration {
    /// Unique name, referenced by attachments.
    pub name: String,
    /// A type registered in the [`MemoryStoreRegistry`](super::MemoryStoreRegistry):
    /// `simple`, `file`, `blackboard` or a user's own.
    #[serde(rename = "type")]
    pub store_type: String,
    /// The type's settings (checked by the type's parser), as written:
    /// `${VAR}` references are substituted only when the type parses them,
    /// so this value never holds a secret.
    #[serde(default = "empty_object")]
    pub config: Value,
    /// Where the declaration is (file and path), for messages.
    #[serde(skip)]
    #[schemars(skip)]
    pub location: ConfigLocation,
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// How one agent uses one store (seed 003's `MemoryAttachmentConfig`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AttachmentConfig {
    /// The store's name in `memory.stores`.
    pub name: String,
    /// The stages that retrieve from it; absent means every stage.
    #[serde(default)]
    pub retrieve_stage: Option<Vec<Stage>>,
    /// Most items retrieved per stage, ≥ 1. Default 3.
    #[serde(default = "default_top_k")]
    pub top_k: usize,
    /// Items scoring below this similarity are dropped; `-1` (the default)
    /// keeps everything. Range `[-1, 1]`.
    #[serde(default = "default_threshold")]
    pub similarity_threshold: f64,
    /// Whether the agent reads it. Default `true`.
    #[serde(default = "yes")]
    pub read: bool,
    /// Whether each finished turn is written to it (`update` then `save`).
    /// Default `false`.
    #[serde(default)]
    pub write: bool,
    /// Where the attachment is, for messages.
    #[serde(skip)]
    #[schemars(skip)]
    pub location: ConfigLocation,
}

fn default_top_k() -> usize {
    3
}

fn default_threshold() -> f64 {
    -1.0
}

fn yes() -> bool {
    true
}

impl AttachmentConfig {
    /// An attachment of `name` with the defaults (every stage, top 3, no
    /// threshold, read, no write).
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            retrieve_stage: None,
            top_k: default_top_k(),
            similarity_threshold: default_threshold(),
            read: true,
            write: false,
            location: ConfigLocation::default(),
        }
    }

    /// Whether it retrieves at `stage` (its list holds it, or it has none).
    pub fn retrieves_at(&self, stage: Stage) -> bool {
        self.read
            && self
                .retrieve_stage
                .as_ref()
                .is_none_or(|stages| stages.contains(&stage))
    }
}

/// One entry of `agents` (or a DevAll `nodes` entry of `type: agent`, its
/// `id` as the name and its `config` as the rest): the agent's name, its
/// attachments, and its own model, prompt and memory settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AgentMemories {
    /// The agent's name (`agcore chat --agent NAME`; default `assistant`).
    pub name: String,
    /// Its attachments, in the order their memories are shown.
    #[serde(default)]
    pub memories: Vec<AttachmentConfig>,
    /// The named LLM endpoint it talks to (seed 003's node `provider`;
    /// the `agcore` program reads `providers.NAME`, `openai` being `[llm]`
    /// unless declared). `None`: the program's endpoint.
    #[serde(default)]
    pub provider: Option<String>,
    /// Its model id (seed 003's node `model`). `None`: the endpoint's model.
    #[serde(default)]
    pub model: Option<String>,
    /// The name of the prompt template of its system prompt (seed 003's
    /// node `prompt_template`): a file `<name>.md` (or `.txt`, `.j2`,
    /// `.jinja`) in the `prompts` folder beside the configuration file, or a
    /// built-in prompt's name. `None`: the program's base prompt.
    #[serde(default)]
    pub prompt_template: Option<String>,
    /// Its own long-term memory settings (seed 004 §8.1), over the
    /// configuration's `[memory]` section.
    #[serde(default)]
    pub memory: Option<AgentMemoryConfig>,
}

impl AgentMemories {
    /// An agent called `name` with no attachments and no settings of its own.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            memories: Vec::new(),
            provider: None,
            model: None,
            prompt_template: None,
            memory: None,
        }
    }
}

/// The `memory` keys this module reads; the section's other keys belong to
/// the rest of the configuration file and are left alone.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MemorySection {
    /// The declared stores.
    #[serde(default)]
    pub stores: Vec<StoreDeclaration>,
    /// The header line of the memory block (default
    /// [`DEFAULT_HEADER`](super::DEFAULT_HEADER)).
    #[serde(default)]
    pub attachment_header: Option<String>,
}

/// A whole configuration: stores and agents. Read with
/// [`AttachConfig::parse`] or [`AttachConfig::load`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttachConfig {
    /// `memory.stores` and `memory.attachment_header`.
    #[serde(default)]
    pub memory: MemorySection,
    /// `agents`.
    #[serde(default)]
    pub agents: Vec<AgentMemories>,
    /// The file it was read from.
    #[serde(skip)]
    #[schemars(skip)]
    pub file: Option<PathBuf>,
}

impl AttachConfig {
    /// The agent named `name`.
    pub fn agent(&self, name: &str) -> Option<&AgentMemories> {
        self.agents.iter().find(|a| a.name == name)
    }

    /// The store named `name`.
    pub fn store(&self, name: &str) -> Option<&StoreDeclaration> {
        self.memory.stores.iter().find(|s| s.name == name)
    }
}
