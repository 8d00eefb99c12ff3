//! Property tests: rendering passes any text through unchanged.
#![cfg(test)]

use agcore_prompt::{PromptError, PromptTemplate, TemplateContext};
use proptest::prelude::*;

proptest! {
    /// Any string value (HTML, braces, Chinese, newlines) is inserted verbatim.
    #[test]
    fn values_are_inserted_verbatim(value in any::<String>(), prefix in "[a-z 中文]{0,8}") {
        let t = PromptTemplate::new("t", format!("{prefix}{{{{ v }}}}")).unwrap();
        let out = t.render(&TemplateContext::new().with("v", value.clone())).unwrap();
        prop_assert_eq!(out, format!("{prefix}{value}"));
    }

    /// A missing variable is always reported by its name, whatever the name.
    #[test]
    fn missing_variables_are_named(name in "[a-z_][a-z0-9_]{0,12}") {
        prop_assume!(!matches!(name.as_str(), "true" | "false" | "none" | "loop" | "self" | "namespace" | "range" | "dict" | "debug" | "and" | "or" | "not" | "in" | "is" | "if" | "else"));
        let t = PromptTemplate::new("t", format!("[{{{{ {name} }}}}]")).unwrap();
        match t.render(&TemplateContext::new()) {
            Err(PromptError::MissingVariable(n)) => prop_assert_eq!(n, name),
            other => prop_assert!(false, "expected MissingVariable, got {:?}", other),
        }
    }
}
