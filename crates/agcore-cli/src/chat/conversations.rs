//! Stored conversations of `agcore chat`: `--list-sessions` and choosing the
//! conversation `--resume [ID]` continues.

use agcore::memory::{ConversationInfo, list_conversations};

use crate::error::CliError;
use crate::output::{self, Table, cell};
use crate::scope::OpenedMemory;

/// The stored conversations of the scope's agent and user, newest first.
///
/// # Errors
/// Storage errors.
async fn conversations(opened: &OpenedMemory) -> Result<Vec<ConversationInfo>, CliError> {
    let scope = opened.scoped.scope();
    Ok(list_conversations(&opened.storage.store(), scope.agent(), scope.user()).await?)
}

/// `agcore chat --list-sessions`: a table (or JSON with `--json`) of the
/// conversations of the agent and user, the most recent first.
///
/// # Errors
/// Storage errors and stdout failures.
pub(crate) async fn list(opened: &OpenedMemory, json: bool) -> Result<(), CliError> {
    let found = conversations(opened).await?;
    if json {
        return output::json(&found);
    }
    if found.is_empty() {
        return output::line(&format!(
            "no stored conversations of {}",
            opened.scoped.scope()
        ));
    }
    let mut table = Table::new(["ID", "STARTED", "LAST TURN", "TURNS", "FIRST LINE"]);
    for info in &found {
        table.row([
            info.session_id.clone(),
            info.started_at.format("%Y-%m-%d %H:%M").to_string(),
            info.last_turn_at.format("%Y-%m-%d %H:%M").to_string(),
            info.turns.to_string(),
            cell(&info.first_user_line, 50),
        ]);
    }
    output::emit(&table.render())
}

/// The conversation `--resume` names: with no id the most recent one of
/// the agent and user, else the one whose id is `id` or starts with it.
///
/// # Errors
/// [`CliError::Invalid`] (exit 3) when there is none, or when a prefix
/// fits several.
pub(crate) async fn resolve(opened: &OpenedMemory, id: Option<&str>) -> Result<String, CliError> {
    let found = conversations(opened).await?;
    let scope = opened.scoped.scope();
    let Some(id) = id.map(str::trim) else {
        return found.first().map(|i| i.session_id.clone()).ok_or_else(|| {
            CliError::Invalid(format!(
                "no stored conversation of {scope} to resume; start one with `agcore chat`"
            ))
        });
    };
    if let Some(exact) = found.iter().find(|i| i.session_id == id) {
        return Ok(exact.session_id.clone());
    }
    let matching: Vec<&ConversationInfo> = found
        .iter()
        .filter(|i| !id.is_empty() && i.session_id.starts_with(id))
        .collect();
    match matching.as_slice() {
        [one] => Ok(one.session_id.clone()),
        [] => Err(CliError::Invalid(format!(
            "no conversation {id:?} of {scope}; see `agcore chat --list-sessions`"
        ))),
        several => Err(CliError::Invalid(format!(
            "{id:?} starts {} conversation ids of {scope}; give more of the id (see `agcore chat --list-sessions`)",
            several.len()
        ))),
    }
}
