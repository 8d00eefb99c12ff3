//! `agcore chat`: an interactive agent with streamed replies and long-term
//! memory (the `memory_save` / `memory_recall` tools, prefetch into the
//! system prompt, background fact extraction) in the SQLite memory database.

mod conversations;
pub(crate) mod endpoint;
mod memory_model;
pub(crate) mod prompts;
mod session;
pub(crate) mod setup;
mod slash;

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use agcore::agent::AgentError;
use clap::Args;
use tokio::io::AsyncBufReadExt;

use crate::config::AppConfig;
use crate::error::CliError;
use crate::scope::{self, ScopeArgs};

use self::endpoint::Endpoint;
use self::session::Chat;
use self::slash::Action;

/// Arguments of `agcore chat`.
#[derive(Debug, Args)]
#[command(
    after_help = "Type a message and press Enter; replies stream as they are written.
Session commands: /memory, /forget <id>, /reset, /exit (or Ctrl-D), /help.
Every conversation is stored in the memory database as its turns complete:
--list-sessions lists them, --resume [ID] continues one (the most recent without ID).
Ctrl-C cancels a running reply; at the prompt it leaves like /exit.
The endpoint comes from --base-url/--model, else OPENAI_BASE_URL, OPENAI_API_KEY and
AGCORE_MODEL, else [llm] in agcore.toml. Lines can also be piped in.
With --config FILE (TOML, or YAML by a .yaml/.yml extension) holding `memory.stores`
and `agents`, the agent gets the memory attachments of the `agents` entry named by
--agent (default `assistant`); see docs/memory-attachments.md.

Examples:
  OPENAI_BASE_URL=http://127.0.0.1:8080/v1 AGCORE_MODEL=smollm2 agcore chat --user alice
  echo \"I prefer green tea\" | agcore chat --user alice --model gpt-4o-mini
  agcore chat --config agents.yaml --agent helper
  agcore chat --wiki wiki.db --user alice
  agcore chat --list-sessions --user alice
  agcore chat --resume --user alice"
)]
pub struct ChatArgs {
    #[command(flatten)]
    scope: ScopeArgs,
    /// Model id (default: $AGCORE_MODEL, else `model` in the `llm` section of agcore.toml).
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// OpenAI-compatible base URL (default: $OPENAI_BASE_URL, else `base_url` in the `llm`
    /// section of agcore.toml).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Wiki database filled by `agcore wiki ingest` (a storage URL or SQLite file
    /// path): the agent gets the `retrieve` tool, which searches its pages.
    #[arg(long, value_name = "DB")]
    wiki: Option<String>,
    /// Continue a stored conversation: the one whose id is ID (or starts with it), or
    /// without ID the most recent one of this agent and user.
    #[arg(long, value_name = "ID", num_args = 0..=1, conflicts_with = "list_sessions")]
    resume: Option<Option<String>>,
    /// List the stored conversations of this agent and user (id, started, last turn,
    /// turns, first line), the most recent first, and exit.
    #[arg(long)]
    list_sessions: bool,
    /// With --list-sessions: print JSON for scripts instead of a table.
    #[arg(long, requires = "list_sessions")]
    json: bool,
}

/// Runs `agcore chat` with the configuration file `config` (`--config`).
///
/// # Errors
/// [`CliError::Config`] / [`CliError::Endpoint`] (exit 2) when no endpoint is
/// configured or the first turn cannot reach it; storage and I/O errors.
pub async fn run(args: ChatArgs, config: Option<PathBuf>) -> Result<(), CliError> {
    let scope = args.scope.scope()?;
    // The agent's own memory settings, provider and model over the file's.
    let config = AppConfig::load(config.as_deref())?.for_agent(scope.agent())?;
    if args.list_sessions {
        let opened = scope::open_memory(&args.scope, &config).await?;
        let listed = conversations::list(&opened, args.json).await;
        opened.memory.close().await?;
        return listed;
    }
    let endpoint = Endpoint::resolve(args.base_url.as_ref(), args.model.as_ref(), &config)?;
    let attachments = crate::attach::open_manager(&config, scope.agent()).await?;
    let prompts = prompts::load(&config).await?;
    let opened = scope::open_memory(&args.scope, &config).await?;
    let wiki = match &args.wiki {
        Some(db) => Some(Arc::new(crate::wiki::open_wiki(db).await?)),
        None => None,
    };
    let resume = match &args.resume {
        Some(id) => Some(conversations::resolve(&opened, id.as_deref()).await?),
        None => None,
    };
    let resumed = resume.is_some();
    let mut chat = Chat::start(
        &endpoint,
        &config,
        &opened,
        attachments.clone(),
        prompts,
        wiki,
        resume,
    )
    .await?;
    let interactive = std::io::stdin().is_terminal();
    if interactive {
        banner(&chat, &endpoint, &opened, attachments.as_deref(), resumed);
    }
    let result = read_loop(&mut chat, &endpoint, &opened.scoped, interactive).await;
    chat.finish().await;
    if interactive && chat.history_len() > 0 {
        eprintln!(
            "(conversation {} stored; `agcore chat --resume {}` continues it)",
            chat.session_id(),
            chat.session_id()
        );
    }
    opened.finish().await;
    let closed = opened.memory.close().await;
    result?;
    Ok(closed?)
}

/// What an interactive chat prints on stderr before the first prompt.
fn banner(
    chat: &Chat,
    endpoint: &Endpoint,
    opened: &scope::OpenedMemory,
    attachments: Option<&agcore::attach::MemoryManager>,
    resumed: bool,
) {
    let scope = opened.scoped.scope();
    if let Some(manager) = attachments {
        let names: Vec<&str> = manager.attachments().map(|a| a.name.as_str()).collect();
        eprintln!(
            "memory attachments of {}: {}",
            scope.agent(),
            names.join(", ")
        );
    }
    eprintln!(
        "agcore chat: model {} at {}, memory of {} in {}\n{}",
        endpoint.model,
        endpoint.base_url,
        scope,
        opened.info(),
        slash::HELP
    );
    if resumed {
        eprintln!(
            "(conversation {} resumed: {} messages)",
            chat.session_id(),
            chat.history_len()
        );
    }
}

async fn read_loop(
    chat: &mut Chat,
    endpoint: &Endpoint,
    scoped: &agcore::memory::long_term::ScopedMemory,
    interactive: bool,
) -> Result<(), CliError> {
    let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
    let mut answered = false;
    loop {
        if interactive {
            eprint!("> ");
        }
        // Ctrl-C at the prompt leaves like /exit (memory is flushed).
        let line = tokio::select! {
            line = lines.next_line() => line?,
            _ = tokio::signal::ctrl_c() => None,
        };
        let Some(line) = line else {
            break;
        };
        let input = line.trim();
        if input.is_empty() {
            continue;
        }
        if input.starts_with('/') {
            match slash::handle(input, scoped).await? {
                Action::Continue => {}
                Action::Exit => break,
                Action::Reset => {
                    chat.reset().await?;
                    eprintln!("(new conversation {}; memories kept)", chat.session_id());
                }
            }
            continue;
        }
        match chat.turn(input).await {
            Ok(()) => answered = true,
            Err(AgentError::Cancelled) => eprintln!("(cancelled)"),
            Err(err) => {
                if !answered && let Some(fatal) = endpoint.first_turn_error(&err) {
                    return Err(fatal);
                }
                eprintln!("error: {}", one_line(&err.to_string()));
            }
        }
    }
    Ok(())
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}
