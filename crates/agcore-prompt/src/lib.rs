//! Prompts for agcore agents.
//!
//! - [`PromptTemplate`]: a Jinja2 template (via minijinja) with variables,
//!   conditionals, loops and filters; a variable the context lacks is
//!   [`PromptError::MissingVariable`], never an empty string.
//! - [`TemplateContext`]: the variables, from pairs, maps or any `Serialize`
//!   value.
//! - [`PromptTemplateRegistry`]: templates by name, registered in code or
//!   loaded from a directory of `*.j2`, `*.jinja`, `*.txt`, `*.md` files.
//! - [`PromptComposer`]: the message list for one model call, with a layered
//!   system prompt (base, agent, environment, memory context) rebuilt on
//!   every call.
//! - [`append_system_reminder`]: adds a `<system-reminder>` part to a user
//!   message.
//! - [`builtin`]: every prompt text agcore itself sends, as named templates
//!   overridable through a registry
//!   ([`PromptTemplateRegistry::render_or_builtin`]).
//!
//! # Examples
//!
//! ```
//! use agcore_prompt::{
//!     EnvironmentContext, PromptComposer, PromptError, PromptTemplate, PromptTemplateRegistry,
//!     TemplateContext,
//! };
//!
//! let mut templates = PromptTemplateRegistry::new();
//! templates.register(PromptTemplate::new(
//!     "ask",
//!     "Weather for {{ cities | join(', ') }}{% if unit is defined %} in {{ unit | upper }}{% endif %}?",
//! )?)?;
//! let ctx = TemplateContext::new().with("cities", vec!["北京", "Paris"]).with("unit", "c");
//! let question = templates.render("ask", &ctx)?;
//! assert_eq!(question, "Weather for 北京, Paris in C?");
//!
//! let messages = PromptComposer::new()
//!     .base("You are a weather assistant.")
//!     .environment(EnvironmentContext::new().with_working_directory("/srv/app"))
//!     .user(question)
//!     .compose();
//! assert_eq!(messages.len(), 2);
//! assert!(messages[0].text().contains("Working directory: /srv/app"));
//! # Ok::<(), PromptError>(())
//! ```

pub mod builtin;
mod composer;
mod context;
mod environment;
mod error;
mod registry;
mod reminder;
mod template;
pub mod untrusted;

pub use composer::{LAYER_SEPARATOR, PromptComposer, SystemLayer};
pub use context::TemplateContext;
pub use environment::EnvironmentContext;
pub use error::PromptError;
pub use registry::{PromptTemplateRegistry, TEMPLATE_EXTENSIONS};
pub use reminder::{
    SYSTEM_REMINDER_CLOSE, SYSTEM_REMINDER_OPEN, append_system_reminder, system_reminder,
};
pub use template::PromptTemplate;
