//! The prompt texts agcore itself sends, as named templates
//! (`docs/prompts.md` lists them with where they are used and their
//! variables).
//!
//! Each built-in prompt has a dotted name ([`names`]). A
//! [`PromptTemplateRegistry`] overrides one by registering a template of the
//! same name (in code, or a file `memory.instructions.en.txt` loaded with
//! [`PromptTemplateRegistry::load_dir`]);
//! [`PromptTemplateRegistry::render_or_builtin`] renders the override when
//! there is one and the built-in text otherwise.
//!
//! Each built-in prompt declares which of its variables carry stored or
//! external text ([`BuiltinPrompt::untrusted`]); the template itself renders
//! them quoted and escaped, in the built-in text and in every override of
//! the same name (the registry declares them on every template it holds).
//!
//! # Examples
//! ```
//! use agcore_prompt::builtin::names;
//! use agcore_prompt::{PromptError, PromptTemplate, PromptTemplateRegistry, TemplateContext};
//!
//! let mut prompts = PromptTemplateRegistry::new();
//! let goal = TemplateContext::new().with("goal", "ship it");
//! assert!(prompts.render_or_builtin(names::TASK_REVIEW, &goal)?.contains("ship it"));
//! prompts.register(PromptTemplate::new(names::TASK_REVIEW, "Check: {{ goal }}")?)?;
//! // `goal` is untrusted in `task.review`: the override quotes it too.
//! assert_eq!(prompts.render_or_builtin(names::TASK_REVIEW, &goal)?, "Check: > ship it");
//! # Ok::<(), PromptError>(())
//! ```

pub mod texts;

use crate::{PromptError, PromptTemplate, PromptTemplateRegistry, TemplateContext};

/// The names of the built-in prompts.
pub mod names {
    /// The memory-usage instructions in English.
    pub const MEMORY_INSTRUCTIONS_EN: &str = "memory.instructions.en";
    /// The memory-usage instructions in Chinese.
    pub const MEMORY_INSTRUCTIONS_ZH: &str = "memory.instructions.zh";
    /// The opening lines of the `<memory-context>` block, in English.
    pub const MEMORY_CONTEXT_PREAMBLE_EN: &str = "memory.context_preamble.en";
    /// The opening lines of the `<memory-context>` block, in Chinese.
    pub const MEMORY_CONTEXT_PREAMBLE_ZH: &str = "memory.context_preamble.zh";
    /// The heading of the short-term turns in the `<memory-context>` block, in English.
    pub const MEMORY_SHORT_TERM_HEADER_EN: &str = "memory.short_term_header.en";
    /// The heading of the short-term turns in the `<memory-context>` block, in Chinese.
    pub const MEMORY_SHORT_TERM_HEADER_ZH: &str = "memory.short_term_header.zh";
    /// The planning turn of a planning agent (variable `goal`).
    pub const TASK_PLANNING: &str = "task.planning";
    /// The review turn of a planning agent (variable `goal`).
    pub const TASK_REVIEW: &str = "task.review";
    /// The base system prompt of `agcore chat`.
    pub const CLI_CHAT_BASE: &str = "cli.chat.base";
    /// The system message of a summary-compaction request.
    pub const COMPACTION_SUMMARY: &str = "compaction.summary";
    /// The instructions of the long-term fact-extraction request.
    pub const MEMORY_EXTRACTION: &str = "memory.extraction";
}

/// One built-in prompt: its name, text and documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinPrompt {
    /// The dotted name an override registers under.
    pub name: &'static str,
    /// The template source (Jinja syntax; most have no variables).
    pub source: &'static str,
    /// Where agcore sends it.
    pub used_by: &'static str,
    /// The variables the renderer provides.
    pub variables: &'static [&'static str],
    /// The variables that can carry stored or external text (memories,
    /// turns, tool results, documents, goals, step results, summaries):
    /// rendered quoted and escaped by the template itself
    /// ([`PromptTemplate::with_untrusted`]), in the built-in text and in any
    /// override of the same name. Every variable is untrusted but those in
    /// [`PROGRAM_VARIABLES`].
    pub untrusted: &'static [&'static str],
}

/// Variable names whose values the program makes itself (limits, counts,
/// language codes), the only variables of a built-in prompt that may be
/// left out of [`BuiltinPrompt::untrusted`].
pub const PROGRAM_VARIABLES: &[&str] = &["max_facts", "language"];

/// Every built-in prompt.
pub const BUILTIN_PROMPTS: [BuiltinPrompt; 11] = [
    BuiltinPrompt {
        name: names::MEMORY_INSTRUCTIONS_EN,
        source: texts::MEMORY_INSTRUCTIONS_EN,
        used_by: "agcore-agent: appended to the system prompt when long-term memory is on (language English)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_INSTRUCTIONS_ZH,
        source: texts::MEMORY_INSTRUCTIONS_ZH,
        used_by: "agcore-agent: appended to the system prompt when long-term memory is on (language Chinese)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_CONTEXT_PREAMBLE_EN,
        source: texts::MEMORY_CONTEXT_PREAMBLE_EN,
        used_by: "agcore-agent: first lines of the prefetched `<memory-context>` block (English, or instructions off)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_CONTEXT_PREAMBLE_ZH,
        source: texts::MEMORY_CONTEXT_PREAMBLE_ZH,
        used_by: "agcore-agent: first lines of the prefetched `<memory-context>` block (Chinese)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_SHORT_TERM_HEADER_EN,
        source: texts::MEMORY_SHORT_TERM_HEADER_EN,
        used_by: "agcore-memory: heading of the recent short-term turns in the `<memory-context>` block (English, or instructions off)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_SHORT_TERM_HEADER_ZH,
        source: texts::MEMORY_SHORT_TERM_HEADER_ZH,
        used_by: "agcore-memory: heading of the recent short-term turns in the `<memory-context>` block (Chinese)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::TASK_PLANNING,
        source: texts::TASK_PLANNING,
        used_by: "agcore-agent: the planning turn of `PlanningAgent`",
        variables: &["goal"],
        untrusted: &["goal"],
    },
    BuiltinPrompt {
        name: names::TASK_REVIEW,
        source: texts::TASK_REVIEW,
        used_by: "agcore-agent: the review turn of `PlanningAgent::with_default_review`",
        variables: &["goal"],
        untrusted: &["goal"],
    },
    BuiltinPrompt {
        name: names::CLI_CHAT_BASE,
        source: texts::CLI_CHAT_BASE,
        used_by: "agcore-cli: the base layer of the system prompt of `agcore chat`",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::COMPACTION_SUMMARY,
        source: texts::COMPACTION_SUMMARY,
        used_by: "agcore-llm: the system message of a summary-compaction request (`CompactConfig::summary_instruction`)",
        variables: &[],
        untrusted: &[],
    },
    BuiltinPrompt {
        name: names::MEMORY_EXTRACTION,
        source: texts::MEMORY_EXTRACTION,
        used_by: "agcore-memory / agcore-agent: the instructions of the long-term fact-extraction request",
        variables: &[],
        untrusted: &[],
    },
];

/// The built-in prompt called `name`.
pub fn builtin_prompt(name: &str) -> Option<&'static BuiltinPrompt> {
    BUILTIN_PROMPTS.iter().find(|p| p.name == name)
}

/// `template` with the untrusted variables of the built-in prompt of the
/// same name declared ([`PromptTemplate::with_untrusted`]); other templates
/// are returned as they are. The registry applies it to every template it
/// holds, so an override quotes what the built-in text quotes.
pub fn declare_untrusted(template: PromptTemplate) -> PromptTemplate {
    match builtin_prompt(template.name()) {
        Some(prompt) if !prompt.untrusted.is_empty() => {
            template.with_untrusted(prompt.untrusted.iter().copied())
        }
        _ => template,
    }
}

/// A template of `source` overriding the built-in prompt `name`, its
/// untrusted variables declared as the built-in's are (for an override
/// given in code rather than through a registry).
///
/// # Errors
/// [`PromptError::Syntax`] when `source` does not parse.
pub fn override_template(name: &str, source: &str) -> Result<PromptTemplate, PromptError> {
    Ok(declare_untrusted(PromptTemplate::new(name, source)?))
}

impl PromptTemplateRegistry {
    /// A registry holding every built-in prompt; [`Self::replace`] overrides
    /// one.
    ///
    /// # Errors
    /// [`PromptError::Syntax`] if a built-in text does not parse (a bug the
    /// crate's tests rule out).
    pub fn with_builtins() -> Result<Self, PromptError> {
        let mut registry = Self::new();
        for prompt in &BUILTIN_PROMPTS {
            registry.register(override_template(prompt.name, prompt.source)?)?;
        }
        Ok(registry)
    }

    /// Renders the template called `name`: the registered one when there is
    /// one (an override), else the built-in prompt of that name.
    ///
    /// # Errors
    /// [`PromptError::TemplateNotFound`] when neither exists, or any error of
    /// [`PromptTemplate::render`] (an override using a variable the caller
    /// does not provide is [`PromptError::MissingVariable`]).
    pub fn render_or_builtin(
        &self,
        name: &str,
        ctx: &TemplateContext,
    ) -> Result<String, PromptError> {
        if let Some(template) = self.get(name) {
            return template.render(ctx);
        }
        let prompt =
            builtin_prompt(name).ok_or_else(|| PromptError::TemplateNotFound(name.to_owned()))?;
        override_template(prompt.name, prompt.source)?.render(ctx)
    }
}

#[cfg(test)]
mod hostile_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses_and_renders_with_its_variables() {
        let registry = PromptTemplateRegistry::with_builtins().unwrap();
        assert_eq!(registry.len(), BUILTIN_PROMPTS.len());
        for prompt in &BUILTIN_PROMPTS {
            let mut ctx = TemplateContext::new();
            for var in prompt.variables {
                ctx = ctx.with(*var, "VALUE");
            }
            let text = registry.render(prompt.name, &ctx).unwrap();
            assert!(!text.trim().is_empty(), "{}", prompt.name);
            let template = registry.get(prompt.name).unwrap();
            let vars: Vec<String> = template.variables().into_iter().collect();
            assert_eq!(vars, prompt.variables, "{}", prompt.name);
            if prompt.variables.is_empty() {
                assert_eq!(text, prompt.source, "{} renders verbatim", prompt.name);
            }
        }
    }

    #[test]
    fn unknown_names_are_not_found() {
        let err = PromptTemplateRegistry::new()
            .render_or_builtin("no.such.prompt", &TemplateContext::new())
            .unwrap_err();
        assert!(matches!(err, PromptError::TemplateNotFound(_)));
    }
}
