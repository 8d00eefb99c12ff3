//! Slash commands of the chat session.

use agcore::memory::long_term::ListRequest;

use crate::error::CliError;
use crate::memory::entries_table;
use crate::output;
use agcore::memory::long_term::ScopedMemory;

/// Help text of the session.
pub(crate) const HELP: &str = "/memory       list what I remember about you
/forget <id>  forget memory <id>
/reset        start a new conversation (memories are kept)
/exit         save and quit (also Ctrl-D)
/help         this list";

/// What the loop does after a slash command.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Action {
    /// Keep reading.
    Continue,
    /// Start a new session.
    Reset,
    /// Leave.
    Exit,
}

/// Runs the slash command `line` (starting with `/`).
///
/// # Errors
/// Storage errors and stdout failures.
pub(crate) async fn handle(line: &str, scoped: &ScopedMemory) -> Result<Action, CliError> {
    let mut words = line.split_whitespace();
    let command = words.next().unwrap_or("");
    match command {
        "/exit" | "/quit" => Ok(Action::Exit),
        "/reset" => Ok(Action::Reset),
        "/help" => {
            output::line(HELP)?;
            Ok(Action::Continue)
        }
        "/memory" | "/memories" => {
            let entries = scoped.list(&ListRequest::all()).await?;
            if entries.is_empty() {
                output::line("(no memories yet)")?;
            } else {
                output::emit(&entries_table(&entries).render())?;
            }
            Ok(Action::Continue)
        }
        "/forget" => {
            match words.next().map(str::parse::<i64>) {
                Some(Ok(id)) => {
                    if scoped.delete(id).await? {
                        output::line(&format!("(forgot memory {id})"))?;
                    } else {
                        output::line(&format!("(no memory {id}; see /memory)"))?;
                    }
                }
                _ => output::line("(usage: /forget <id>; see /memory for ids)")?,
            }
            Ok(Action::Continue)
        }
        other => {
            output::line(&format!("(unknown command {other}; try /help)"))?;
            Ok(Action::Continue)
        }
    }
}
