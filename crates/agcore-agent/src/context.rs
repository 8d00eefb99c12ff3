use std::collections::BTreeMap;
use std::sync::Arc;

use agcore_prompt::untrusted::{escape_markup, quote_lines};

use crate::{Agent, AgentError, AgentSession, RuntimeBundle, SessionMemory};

/// Several isolated contexts inside one session, bridged by its
/// [`SessionMemory`] (option C of the context-switching design).
///
/// Each context is an [`AgentSession`] with its own agent, system prompt and
/// history; all share the session id, so they share one session memory, and
/// every context's system prompt carries the current session-memory snapshot.
/// A context created later therefore sees what earlier contexts stored without
/// their whole histories. [`ContextManager::bridge`] also copies one context's
/// latest conclusion into another's system prompt.
#[derive(Debug)]
pub struct ContextManager {
    session_id: String,
    bundle: Arc<RuntimeBundle>,
    contexts: BTreeMap<String, AgentSession>,
    active: String,
}

impl ContextManager {
    /// A manager for session `session_id` with one context `initial_id` running `agent`.
    pub fn new(
        session_id: impl Into<String>,
        bundle: Arc<RuntimeBundle>,
        initial_id: impl Into<String>,
        agent: Arc<dyn Agent>,
    ) -> Self {
        let session_id = session_id.into();
        let initial_id = initial_id.into();
        let session = AgentSession::with_id(session_id.clone(), agent, Arc::clone(&bundle));
        Self {
            session_id,
            bundle,
            contexts: BTreeMap::from([(initial_id.clone(), session)]),
            active: initial_id,
        }
    }

    /// The session id shared by every context.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The id of the active context.
    pub fn active_id(&self) -> &str {
        &self.active
    }

    /// Ids of every context, sorted.
    pub fn context_ids(&self) -> Vec<&str> {
        self.contexts.keys().map(String::as_str).collect()
    }

    /// The session memory shared by the contexts.
    pub fn session_memory(&self) -> SessionMemory {
        SessionMemory::new(
            Arc::clone(&self.bundle.session_memory_store),
            &self.session_id,
        )
    }

    /// Creates context `id` running `agent` (it does not become active).
    ///
    /// # Errors
    /// [`AgentError::Context`] when `id` exists already.
    pub fn create_context(&mut self, id: &str, agent: Arc<dyn Agent>) -> Result<(), AgentError> {
        if self.contexts.contains_key(id) {
            return Err(AgentError::Context(format!(
                "context `{id}` exists already"
            )));
        }
        let session =
            AgentSession::with_id(self.session_id.clone(), agent, Arc::clone(&self.bundle));
        self.contexts.insert(id.to_owned(), session);
        Ok(())
    }

    /// Makes `id` the active context and returns it.
    ///
    /// # Errors
    /// [`AgentError::Context`] when there is no such context.
    pub fn switch_context(&mut self, id: &str) -> Result<&mut AgentSession, AgentError> {
        let session = self
            .contexts
            .get_mut(id)
            .ok_or_else(|| AgentError::Context(format!("no context `{id}`")))?;
        self.active = id.to_owned();
        Ok(session)
    }

    /// The active context.
    ///
    /// # Errors
    /// [`AgentError::Context`] if the active context is missing (it cannot be
    /// destroyed, so this does not happen through this API).
    pub fn active(&mut self) -> Result<&mut AgentSession, AgentError> {
        let active = self.active.clone();
        self.context_mut(&active)
    }

    /// Context `id`.
    ///
    /// # Errors
    /// [`AgentError::Context`] when there is no such context.
    pub fn context_mut(&mut self, id: &str) -> Result<&mut AgentSession, AgentError> {
        self.contexts
            .get_mut(id)
            .ok_or_else(|| AgentError::Context(format!("no context `{id}`")))
    }

    /// Destroys context `id` and its history (session memory is kept).
    ///
    /// # Errors
    /// [`AgentError::Context`] when there is no such context or it is the active one.
    pub fn destroy_context(&mut self, id: &str) -> Result<(), AgentError> {
        if id == self.active {
            return Err(AgentError::Context(format!(
                "context `{id}` is active; switch to another context first"
            )));
        }
        self.contexts
            .remove(id)
            .map(|_| ())
            .ok_or_else(|| AgentError::Context(format!("no context `{id}`")))
    }

    /// Copies the latest assistant answer of context `from` into the system
    /// prompt of context `to`, as
    /// `<bridged-context from="{from}">…</bridged-context>` in its memory layer,
    /// the answer quoted line by line with `> ` and escaped
    /// ([`agcore_prompt::untrusted::quote_lines`]) so that nothing in it can
    /// close the block.
    ///
    /// # Errors
    /// [`AgentError::Context`] when either context is missing, they are the
    /// same, or `from` has no assistant answer yet.
    pub fn bridge(&mut self, from: &str, to: &str) -> Result<(), AgentError> {
        if from == to {
            return Err(AgentError::Context(
                "cannot bridge a context to itself".into(),
            ));
        }
        let text = self
            .contexts
            .get(from)
            .ok_or_else(|| AgentError::Context(format!("no context `{from}`")))?
            .last_assistant_text()
            .ok_or_else(|| {
                AgentError::Context(format!("context `{from}` has no answer to bridge"))
            })?;
        // The answer may repeat text the model read (tool results, documents):
        // quoted and escaped, it cannot close this block or the memory layer.
        let name = escape_markup(from).replace('"', "&quot;");
        let note = format!(
            "<bridged-context from=\"{name}\">\n{}\n</bridged-context>",
            quote_lines(text.trim())
        );
        self.context_mut(to)?.add_bridged_note(note);
        Ok(())
    }
}
