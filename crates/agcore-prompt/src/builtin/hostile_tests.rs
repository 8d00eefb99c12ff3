//! Every built-in prompt, and overrides of them, rendered with the hostile
//! corpus in every variable.

use super::*;
use crate::untrusted::{hostile_corpus, hostile_lines};

/// The lines a template's own text makes: the lines not inside a quote,
/// each cut where an inline quote starts.
fn skeleton(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with('>'))
        .map(|l| l.split("> ").next().unwrap_or_default().to_owned())
        .collect()
}

fn context(prompt: &BuiltinPrompt, value: &str) -> TemplateContext {
    let mut ctx = TemplateContext::new();
    for var in prompt.variables {
        ctx = if PROGRAM_VARIABLES.contains(var) {
            ctx.with(*var, "3")
        } else {
            ctx.with(*var, value)
        };
    }
    ctx
}

/// Asserts `hostile` keeps the structure of `benign` and starts no line
/// with a hostile line.
fn assert_contained(name: &str, benign: &str, hostile: &str) {
    assert_eq!(skeleton(benign), skeleton(hostile), "{name}: {hostile}");
    assert_eq!(
        benign.matches('<').count(),
        hostile.matches('<').count(),
        "{name}: {hostile}"
    );
    for line in hostile.lines() {
        let start = line.trim_start();
        for bad in hostile_lines() {
            assert!(
                !start.starts_with(&bad),
                "{name}: line {line:?} starts with {bad:?}"
            );
        }
    }
}

#[test]
fn every_variable_of_a_builtin_is_declared_untrusted() {
    for prompt in &BUILTIN_PROMPTS {
        for var in prompt.variables {
            assert!(
                prompt.untrusted.contains(var) || PROGRAM_VARIABLES.contains(var),
                "{}: `{var}` is neither untrusted nor made by the program",
                prompt.name
            );
        }
    }
}

#[test]
fn every_builtin_keeps_its_structure_with_hostile_text() {
    let registry = PromptTemplateRegistry::with_builtins().unwrap();
    for prompt in &BUILTIN_PROMPTS {
        let benign = registry
            .render_or_builtin(prompt.name, &context(prompt, "VALUE"))
            .unwrap();
        for attack in hostile_corpus() {
            let ctx = context(prompt, &attack);
            let hostile = registry.render(prompt.name, &ctx).unwrap();
            assert_contained(prompt.name, &benign, &hostile);
            let fallback = PromptTemplateRegistry::new()
                .render_or_builtin(prompt.name, &ctx)
                .unwrap();
            assert_eq!(fallback, hostile, "{}", prompt.name);
        }
    }
}

#[tokio::test]
async fn overrides_quote_what_the_builtin_quotes() {
    let dir = tempfile::tempdir().unwrap();
    let source = "Plan for:\n{{ goal }}\nthen {{ goal | upper }} <end>";
    tokio::fs::write(dir.path().join("task.planning.j2"), source)
        .await
        .unwrap();
    let loaded = PromptTemplateRegistry::from_dir(dir.path()).await.unwrap();
    let mut registered = PromptTemplateRegistry::new();
    registered
        .register(PromptTemplate::new(names::TASK_PLANNING, source).unwrap())
        .unwrap();
    let mut replaced = PromptTemplateRegistry::with_builtins().unwrap();
    replaced.replace(PromptTemplate::new(names::TASK_PLANNING, source).unwrap());
    let in_code = override_template(names::TASK_PLANNING, source).unwrap();
    let benign_ctx = TemplateContext::new().with("goal", "VALUE");
    let benign = in_code.render(&benign_ctx).unwrap();
    for attack in hostile_corpus() {
        let ctx = TemplateContext::new().with("goal", attack.as_str());
        let out = in_code.render(&ctx).unwrap();
        assert_contained("override", &benign, &out);
        for registry in [&loaded, &registered, &replaced] {
            assert_eq!(registry.render(names::TASK_PLANNING, &ctx).unwrap(), out);
        }
    }
}

#[test]
fn templates_of_other_names_are_left_as_they_are() {
    let mut registry = PromptTemplateRegistry::new();
    registry
        .register(PromptTemplate::new("mine", "{{ goal }}").unwrap())
        .unwrap();
    let ctx = TemplateContext::new().with("goal", "<b>");
    assert_eq!(registry.render("mine", &ctx).unwrap(), "<b>");
}
