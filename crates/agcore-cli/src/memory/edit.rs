//! `memory add` and `memory delete`.

use agcore::memory::long_term::NewMemory;
use clap::Args;

use super::{parse_type, scope_label};
use crate::error::CliError;
use crate::output;
use crate::scope::OpenedMemory;

/// Arguments of `memory add`.
#[derive(Debug, Args)]
pub struct AddArgs {
    /// The memory text.
    content: String,
    /// Memory type: user, project, feedback or reference.
    #[arg(long = "type", value_name = "TYPE", default_value = "user")]
    memory_type: String,
    /// A short title (default: the first line of the text).
    #[arg(long, value_name = "TITLE")]
    name: Option<String>,
    /// Tags, comma-separated.
    #[arg(long, value_name = "TAGS", value_delimiter = ',')]
    tags: Vec<String>,
    /// A one-line description.
    #[arg(long, value_name = "TEXT")]
    description: Option<String>,
    /// Initial weight (default: `memory.long_term.weights.initial`, 1.0).
    #[arg(long, value_name = "W")]
    weight: Option<f64>,
}

/// Arguments of `memory delete`.
#[derive(Debug, Args)]
pub struct DeleteArgs {
    /// The memory id (see `agcore memory list`).
    id: i64,
}

/// Runs `memory add`.
///
/// # Errors
/// [`CliError::Invalid`] for an unknown type, empty text or a bad weight.
pub async fn add(opened: &OpenedMemory, args: AddArgs, json: bool) -> Result<(), CliError> {
    let memory_type = parse_type(&args.memory_type)?;
    if args.content.trim().is_empty() {
        return Err(CliError::Invalid("the memory text is empty".to_owned()));
    }
    let mut provenance = serde_json::Map::new();
    provenance.insert("source".into(), "agcore memory add".into());
    let mut new = NewMemory::new(memory_type, args.name.unwrap_or_default(), args.content)
        .with_tags(args.tags)
        .with_metadata(provenance);
    if let Some(description) = args.description {
        new = new.with_description(description);
    }
    if let Some(weight) = args.weight {
        new = new.with_weight(weight);
    }
    let outcome = opened.scoped.save(new).await.map_err(|e| match e {
        agcore::memory::MemoryError::InvalidInput(m) => CliError::Invalid(m),
        other => CliError::Memory(other),
    })?;
    if json {
        return output::json(&outcome);
    }
    let e = &outcome.entry;
    let verb = if outcome.created {
        "saved"
    } else {
        "updated (the same text was already saved)"
    };
    output::line(&format!(
        "{verb}: memory {} [{}] {:?} in {}",
        e.id,
        e.memory_type,
        e.name,
        scope_label(opened)
    ))
}

/// Runs `memory delete`.
///
/// # Errors
/// [`CliError::NotFound`] (exit 4) when the scope has no such memory.
pub async fn delete(opened: &OpenedMemory, args: &DeleteArgs, json: bool) -> Result<(), CliError> {
    if !opened.scoped.delete(args.id).await? {
        return Err(CliError::NotFound(format!(
            "memory {} does not exist in {}",
            args.id,
            scope_label(opened)
        )));
    }
    if json {
        return output::json(&serde_json::json!({ "deleted": args.id }));
    }
    output::line(&format!("deleted memory {}", args.id))
}
