//! The `prompts` folder beside the configuration file: each template file
//! (`.md`, `.txt`, `.j2`, `.jinja`) overrides the built-in prompt of its
//! name (`memory.extraction.md`, `memory.instructions.zh.md`,
//! `cli.chat.base.md`, …; `docs/prompts.md` lists them) or is a template an
//! agent's `prompt_template` names. Seed 002's `memory_extractor.md` is the
//! extraction prompt `memory.extraction`.

use std::path::PathBuf;

use agcore::prompt::builtin::{builtin_prompt, names};
use agcore::prompt::{PromptTemplate, PromptTemplateRegistry};

use crate::config::{self, AppConfig};
use crate::error::CliError;

/// The folder's name, beside the configuration file.
pub(crate) const PROMPTS_DIR: &str = "prompts";

/// Seed file names standing for built-in prompts: (file stem, prompt name).
const ALIASES: [(&str, &str); 1] = [("memory_extractor", names::MEMORY_EXTRACTION)];

/// The `prompts` folder of `config`: beside its file, or beside the
/// default configuration file when none was read.
pub(crate) fn folder(config: &AppConfig) -> Option<PathBuf> {
    let file = config.path.clone().or_else(config::default_config_path)?;
    Some(file.parent()?.join(PROMPTS_DIR))
}

/// The templates of the `prompts` folder (none when it does not exist),
/// seed aliases registered under the built-in name. A file that overrides
/// no built-in prompt and is no agent's `prompt_template` is reported on
/// stderr, since nothing would read it.
///
/// # Errors
/// [`CliError::Config`] naming the folder: a file that cannot be read or
/// does not parse, two files of one name, an alias beside the file of the
/// name it stands for.
pub(crate) async fn load(config: &AppConfig) -> Result<PromptTemplateRegistry, CliError> {
    let mut registry = PromptTemplateRegistry::new();
    let Some(dir) = folder(config).filter(|d| d.is_dir()) else {
        return Ok(registry);
    };
    let bad = |e: String| CliError::Config(format!("prompts folder {}: {e}", dir.display()));
    registry
        .load_dir(&dir)
        .await
        .map_err(|e| bad(e.to_string()))?;
    for (alias, name) in ALIASES {
        let Some(template) = registry.remove(alias) else {
            continue;
        };
        if registry.contains(name) {
            return Err(bad(format!(
                "`{alias}` and `{name}` both override the prompt `{name}`; keep one"
            )));
        }
        let renamed =
            PromptTemplate::new(name, template.source()).map_err(|e| bad(e.to_string()))?;
        registry.register(renamed).map_err(|e| bad(e.to_string()))?;
    }
    let used: Vec<&str> = config
        .attach
        .agents
        .iter()
        .filter_map(|a| a.prompt_template.as_deref())
        .collect();
    for name in registry.names() {
        if builtin_prompt(name).is_none() && !used.contains(&name) {
            eprintln!(
                "warning: {}/{name}.* overrides no built-in prompt and no agent's \
                 prompt_template names it; it is not used",
                dir.display()
            );
        }
    }
    Ok(registry)
}
