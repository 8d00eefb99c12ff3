//! The memory-usage instructions and the `<memory-context>` block (see
//! `docs/memory.md`, *Memory instructions* and *Prefetch*). The texts are
//! built-in prompts of `agcore_prompt::builtin` (`memory.instructions.*`,
//! `memory.context_preamble.*`), overridable by name (`docs/prompts.md`).

use agcore_llm::tokens::TokenCounter;
use agcore_memory::long_term::MemoryEntry;
use agcore_prompt::builtin::names;
use agcore_prompt::untrusted::{escape_markup, quote_lines};
use agcore_prompt::{PromptError, PromptTemplateRegistry, TemplateContext};

use super::InstructionLanguage;

pub use agcore_prompt::builtin::texts::{
    MEMORY_CONTEXT_PREAMBLE_EN, MEMORY_CONTEXT_PREAMBLE_ZH, MEMORY_INSTRUCTIONS_EN,
    MEMORY_INSTRUCTIONS_ZH,
};

/// The first line of the built-in `<memory-context>` preamble in Chinese
/// (the original wording; [`MEMORY_CONTEXT_HEADER_EN`] is its translation).
pub const MEMORY_CONTEXT_HEADER_ZH: &str = "以下是与当前对话可能相关的长期记忆:";

/// The first line of the built-in `<memory-context>` preamble in English.
pub const MEMORY_CONTEXT_HEADER_EN: &str =
    "Long-term memories that may be relevant to this conversation:";

/// The prompt name of the `<memory-context>` preamble for `language`
/// (English when instructions are off).
fn preamble_name(language: InstructionLanguage) -> &'static str {
    match language {
        InstructionLanguage::Chinese => names::MEMORY_CONTEXT_PREAMBLE_ZH,
        InstructionLanguage::English | InstructionLanguage::None => {
            names::MEMORY_CONTEXT_PREAMBLE_EN
        }
    }
}

/// The built-in `<memory-context>` opening for `language` (English when
/// instructions are off): [`MEMORY_CONTEXT_PREAMBLE_EN`] or
/// [`MEMORY_CONTEXT_PREAMBLE_ZH`]. [`memory_context_preamble`] applies
/// overrides.
pub fn memory_context_header(language: InstructionLanguage) -> &'static str {
    match language {
        InstructionLanguage::Chinese => MEMORY_CONTEXT_PREAMBLE_ZH,
        InstructionLanguage::English | InstructionLanguage::None => MEMORY_CONTEXT_PREAMBLE_EN,
    }
}

/// The `<memory-context>` opening for `language` from `prompts`
/// (`memory.context_preamble.en` / `.zh`: an override, else the built-in text).
///
/// # Errors
/// [`PromptError`] when an override fails to render.
pub fn memory_context_preamble(
    prompts: &PromptTemplateRegistry,
    language: InstructionLanguage,
) -> Result<String, PromptError> {
    prompts.render_or_builtin(preamble_name(language), &TemplateContext::new())
}

/// The heading of the short-term turns in the `<memory-context>` block for
/// `language` from `prompts` (`memory.short_term_header.en` / `.zh`: an
/// override, else the built-in text; English when instructions are off).
///
/// # Errors
/// [`PromptError`] when an override fails to render.
pub fn short_term_header(
    prompts: &PromptTemplateRegistry,
    language: InstructionLanguage,
) -> Result<String, PromptError> {
    let name = match language {
        InstructionLanguage::Chinese => names::MEMORY_SHORT_TERM_HEADER_ZH,
        InstructionLanguage::English | InstructionLanguage::None => {
            names::MEMORY_SHORT_TERM_HEADER_EN
        }
    };
    prompts.render_or_builtin(name, &TemplateContext::new())
}

/// The built-in instructions of `language`, `None` for
/// [`InstructionLanguage::None`]. [`render_memory_instructions`] applies
/// overrides.
pub fn memory_instructions(language: InstructionLanguage) -> Option<&'static str> {
    match language {
        InstructionLanguage::English => Some(MEMORY_INSTRUCTIONS_EN),
        InstructionLanguage::Chinese => Some(MEMORY_INSTRUCTIONS_ZH),
        InstructionLanguage::None => None,
    }
}

/// The instructions of `language` from `prompts` (`memory.instructions.en`
/// / `.zh`: an override, else the built-in text); `None` for
/// [`InstructionLanguage::None`].
///
/// # Errors
/// [`PromptError`] when an override fails to render.
pub fn render_memory_instructions(
    prompts: &PromptTemplateRegistry,
    language: InstructionLanguage,
) -> Result<Option<String>, PromptError> {
    let name = match language {
        InstructionLanguage::English => names::MEMORY_INSTRUCTIONS_EN,
        InstructionLanguage::Chinese => names::MEMORY_INSTRUCTIONS_ZH,
        InstructionLanguage::None => return Ok(None),
    };
    prompts
        .render_or_builtin(name, &TemplateContext::new())
        .map(Some)
}

/// The `<memory-context>` body for `entries` (see `docs/memory.md`,
/// *Prefetch*; rendered as data): the `header`, then per entry a blank line, `[type] name` (with
/// `(source: …)` when the entry's metadata names one) and the content
/// quoted line by line with `> `. Name, source and content are untrusted:
/// they pass through [`agcore_prompt::untrusted`], so nothing in them can
/// close the block, open a tag, start a line of its own or hide characters.
/// Entries are taken in order while the body stays within `token_budget`
/// tokens (counted by `counter`); the first entry that does not fit ends the
/// list. Returns the body (without the tags; the prompt composer adds them)
/// and the entries it holds; `None` when no entry fits.
pub fn format_memory_context(
    header: &str,
    entries: &[MemoryEntry],
    token_budget: usize,
    counter: &TokenCounter,
) -> Option<(String, Vec<MemoryEntry>)> {
    let mut body = String::from(header);
    let mut used = counter.count_text(&body);
    let mut kept = Vec::new();
    for entry in entries {
        let item = format!(
            "\n\n[{}] {}{}\n{}",
            entry.memory_type,
            one_line(&entry.name),
            source_of(entry),
            quote_lines(entry.content.trim())
        );
        let cost = counter.count_text(&item);
        if used + cost > token_budget {
            break;
        }
        used += cost;
        body.push_str(&item);
        kept.push(entry.clone());
    }
    (!kept.is_empty()).then_some((body, kept))
}

/// `text` escaped and on one line (line breaks become spaces).
fn one_line(text: &str) -> String {
    escape_markup(&text.split_whitespace().collect::<Vec<_>>().join(" "))
}

/// ` (source: …)` from the entry's `source` metadata, if it is a string,
/// with ` after results of a, b` from its `tool_results` names.
fn source_of(entry: &MemoryEntry) -> String {
    let tools: Vec<String> = entry
        .metadata
        .get("tool_results")
        .and_then(|v| v.as_array())
        .map(|names| {
            names
                .iter()
                .filter_map(|n| n.as_str())
                .map(one_line)
                .collect()
        })
        .unwrap_or_default();
    let after = if tools.is_empty() {
        String::new()
    } else {
        format!(" after results of {}", tools.join(", "))
    };
    match entry.metadata.get("source").and_then(|v| v.as_str()) {
        Some(source) if !source.trim().is_empty() => {
            format!(" (source: {}{after})", one_line(source))
        }
        _ if !after.is_empty() => format!(" (source:{after})"),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_instructions_are_the_spec_text() {
        assert!(MEMORY_INSTRUCTIONS_ZH.starts_with("## 记忆系统"));
        assert!(MEMORY_INSTRUCTIONS_ZH.contains("更新已有记忆而非创建重复条目"));
        assert!(MEMORY_INSTRUCTIONS_EN.contains("memory_save"));
        assert_eq!(memory_instructions(InstructionLanguage::None), None);
    }

    #[test]
    fn overrides_replace_the_builtin_texts() {
        let mut prompts = PromptTemplateRegistry::new();
        let builtin = render_memory_instructions(&prompts, InstructionLanguage::Chinese).unwrap();
        assert_eq!(builtin.as_deref(), Some(MEMORY_INSTRUCTIONS_ZH));
        prompts
            .register(
                agcore_prompt::PromptTemplate::new(names::MEMORY_INSTRUCTIONS_EN, "Remember.")
                    .unwrap(),
            )
            .unwrap();
        let text = render_memory_instructions(&prompts, InstructionLanguage::English).unwrap();
        assert_eq!(text.as_deref(), Some("Remember."));
        let preamble = memory_context_preamble(&prompts, InstructionLanguage::None).unwrap();
        assert_eq!(preamble, MEMORY_CONTEXT_PREAMBLE_EN);
    }
}
