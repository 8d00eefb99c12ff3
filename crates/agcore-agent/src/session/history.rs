//! The session history's length limit ([`crate::AgentConfig::max_history`]).

use agcore_types::{ChatMessage, Role};

/// Drops the oldest whole turns of `history` so that at most `max` messages
/// remain: the cut falls on a user message (a turn's start), so a tool call
/// never loses its result; when even the last turn is longer than `max`,
/// that turn is kept whole. A leading summary left by compaction goes with
/// the turns it precedes. Returns how many messages were dropped.
pub(crate) fn trim_history(history: &mut Vec<ChatMessage>, max: usize) -> usize {
    if history.len() <= max {
        return 0;
    }
    let earliest = history.len() - max;
    let cut = history
        .iter()
        .enumerate()
        .skip(earliest)
        .find(|(_, m)| m.role == Role::User)
        .map(|(i, _)| i)
        .or_else(|| history.iter().rposition(|m| m.role == Role::User))
        .unwrap_or(0);
    history.drain(..cut);
    cut
}

#[cfg(test)]
mod tests {
    use agcore_types::ToolCall;

    use super::*;

    fn turns(n: usize) -> Vec<ChatMessage> {
        (0..n)
            .flat_map(|i| {
                [
                    ChatMessage::user(format!("q{i}")),
                    ChatMessage::assistant_tool_calls(vec![ToolCall::new(
                        format!("c{i}"),
                        "lookup",
                        "{}",
                    )]),
                    ChatMessage::tool(format!("c{i}"), "result"),
                    ChatMessage::assistant(format!("a{i}")),
                ]
            })
            .collect()
    }

    #[test]
    fn drops_whole_turns_from_the_front() {
        let mut history = turns(5);
        assert_eq!(trim_history(&mut history, 9), 12);
        assert_eq!(history.len(), 8);
        assert_eq!(history[0].text(), "q3");
        assert_eq!(trim_history(&mut history, 8), 0);
    }

    #[test]
    fn a_turn_longer_than_the_limit_is_kept_whole() {
        let mut history = turns(3);
        assert_eq!(trim_history(&mut history, 2), 8);
        assert_eq!(history.len(), 4);
        assert_eq!(history[0].text(), "q2");
        assert_eq!(history[2].tool_call_id.as_deref(), Some("c2"));
    }

    #[test]
    fn never_splits_a_tool_call_from_its_result() {
        for max in 1..20 {
            let mut history = turns(4);
            trim_history(&mut history, max);
            assert_eq!(history[0].role, Role::User, "max {max}");
        }
    }
}
