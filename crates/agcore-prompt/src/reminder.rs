use agcore_types::{ChatMessage, MessageContent, Role};

use crate::PromptError;

/// Opening tag of a system reminder.
pub const SYSTEM_REMINDER_OPEN: &str = "<system-reminder>";
/// Closing tag of a system reminder.
pub const SYSTEM_REMINDER_CLOSE: &str = "</system-reminder>";

/// Wraps `text` in `<system-reminder>` tags, one per line:
/// `"<system-reminder>\n{text}\n</system-reminder>"` (surrounding whitespace
/// of `text` trimmed).
///
/// # Examples
///
/// ```
/// assert_eq!(
///     agcore_prompt::system_reminder("You are in read-only mode."),
///     "<system-reminder>\nYou are in read-only mode.\n</system-reminder>"
/// );
/// ```
pub fn system_reminder(text: &str) -> String {
    format!(
        "{SYSTEM_REMINDER_OPEN}\n{}\n{SYSTEM_REMINDER_CLOSE}",
        text.trim()
    )
}

/// Appends a synthetic `<system-reminder>` text part to a user message,
/// leaving the message history untouched — the way OpenCode tells the model
/// about a changed mode or agent without rewriting the system prompt
/// (`packages/opencode/src/session/reminders.ts`).
///
/// Plain-text content becomes a list of parts (the original text first);
/// a message without content gets the reminder as its only part. The
/// reminder is an ordinary `{"type": "text"}` part on the wire.
///
/// # Errors
/// [`PromptError::InvalidMessage`] when `message` is not a user message; the
/// message is unchanged.
///
/// # Examples
///
/// ```
/// use agcore_prompt::append_system_reminder;
/// use agcore_types::{ChatMessage, ContentPart, MessageContent};
///
/// let mut msg = ChatMessage::user("Fix the bug.");
/// append_system_reminder(&mut msg, "Your mode changed from plan to build.")?;
/// let Some(MessageContent::Parts(parts)) = &msg.content else { unreachable!() };
/// assert_eq!(parts.len(), 2);
/// assert!(msg.text().ends_with("</system-reminder>"));
/// # Ok::<(), agcore_prompt::PromptError>(())
/// ```
pub fn append_system_reminder(message: &mut ChatMessage, text: &str) -> Result<(), PromptError> {
    if message.role != Role::User {
        return Err(PromptError::InvalidMessage(format!(
            "a system reminder goes on a user message, not a `{}` message",
            message.role
        )));
    }
    let reminder = system_reminder(text);
    match &mut message.content {
        Some(content) => content.push_text(reminder),
        None => {
            message.content = Some(MessageContent::Parts(vec![
                agcore_types::ContentPart::Text { text: reminder },
            ]));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use agcore_types::ContentPart;

    use super::*;

    #[test]
    fn text_content_becomes_parts() {
        let mut msg = ChatMessage::user("你好");
        append_system_reminder(&mut msg, "  mode: build ").unwrap();
        assert_eq!(
            msg.content,
            Some(MessageContent::Parts(vec![
                ContentPart::Text {
                    text: "你好".into()
                },
                ContentPart::Text {
                    text: "<system-reminder>\nmode: build\n</system-reminder>".into()
                },
            ]))
        );
    }

    #[test]
    fn existing_parts_are_kept() {
        let mut msg = ChatMessage::user_parts(vec![ContentPart::Text { text: "a".into() }]);
        append_system_reminder(&mut msg, "r").unwrap();
        append_system_reminder(&mut msg, "s").unwrap();
        let Some(MessageContent::Parts(parts)) = &msg.content else {
            panic!("expected parts")
        };
        assert_eq!(parts.len(), 3);
    }

    #[test]
    fn empty_content_gets_single_part() {
        let mut msg = ChatMessage::user("x");
        msg.content = None;
        append_system_reminder(&mut msg, "r").unwrap();
        assert_eq!(msg.text(), "<system-reminder>\nr\n</system-reminder>");
    }

    #[test]
    fn non_user_message_is_rejected_unchanged() {
        let mut msg = ChatMessage::assistant("hi");
        let err = append_system_reminder(&mut msg, "r").unwrap_err();
        assert!(matches!(err, PromptError::InvalidMessage(_)));
        assert_eq!(msg, ChatMessage::assistant("hi"));
    }
}
