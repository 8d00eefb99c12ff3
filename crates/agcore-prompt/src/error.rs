use std::path::PathBuf;

use thiserror::Error;

/// Everything that can go wrong building, loading or rendering a prompt.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum PromptError {
    /// The template source does not parse (unclosed block, bad expression, …).
    #[error("template `{template}` has a syntax error: {message}")]
    Syntax {
        /// Template name.
        template: String,
        /// What the parser reported, with the line.
        message: String,
    },
    /// The template uses a variable the context does not provide.
    ///
    /// Holds the expression as written in the template: `name`, or a dotted
    /// path such as `user.name` when an attribute is missing.
    #[error("missing template variable `{0}`")]
    MissingVariable(String),
    /// Rendering failed for another reason (unknown filter, wrong value type
    /// for a filter, …).
    #[error("template `{template}` failed to render: {message}")]
    Render {
        /// Template name.
        template: String,
        /// What the engine reported, with the line.
        message: String,
    },
    /// A context value could not be turned into template data (for example a
    /// map with non-string keys, or a root value that is not an object).
    #[error("invalid template context: {0}")]
    InvalidContext(String),
    /// No template with this name is registered.
    #[error("template not found: {0}")]
    TemplateNotFound(String),
    /// A template with this name is registered already.
    #[error("template already registered: {0}")]
    DuplicateTemplate(String),
    /// A message cannot take the requested change (for example a
    /// `<system-reminder>` appended to a message that is not a user message).
    #[error("invalid message: {0}")]
    InvalidMessage(String),
    /// Reading a template file or directory failed.
    #[error("cannot read `{}`: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl PromptError {
    /// Whether the caller can succeed by calling again with different input
    /// (supplying the missing variable, a valid context value) or later (a
    /// file that could not be read). Template bugs (syntax and render errors),
    /// name clashes, unknown names and invalid messages are not recoverable.
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            Self::MissingVariable(_) | Self::InvalidContext(_) | Self::Io { .. }
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recoverable_split() {
        assert!(PromptError::MissingVariable("x".into()).is_recoverable());
        assert!(PromptError::InvalidContext("bad".into()).is_recoverable());
        assert!(!PromptError::TemplateNotFound("t".into()).is_recoverable());
        assert!(
            !PromptError::Syntax {
                template: "t".into(),
                message: "m".into()
            }
            .is_recoverable()
        );
    }

    #[test]
    fn missing_variable_message_names_the_variable() {
        let err = PromptError::MissingVariable("user.name".into());
        assert_eq!(err.to_string(), "missing template variable `user.name`");
    }
}
