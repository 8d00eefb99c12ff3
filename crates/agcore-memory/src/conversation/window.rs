//! Which messages a sliding window or a capacity limit evicts.

use agcore_types::Role;

use super::StoredMessage;

fn is_pinned(m: &StoredMessage) -> bool {
    matches!(m.message.role, Role::System | Role::Developer)
}

/// Sequence numbers before the start of the last `max_turns` user turns
/// (system and developer messages are never evicted by the window).
/// `max_turns == 0` evicts every non-pinned message.
pub(super) fn outside_window(entries: &[StoredMessage], max_turns: usize) -> Vec<u64> {
    let user_starts: Vec<usize> = entries
        .iter()
        .enumerate()
        .filter(|(_, m)| m.message.role == Role::User)
        .map(|(i, _)| i)
        .collect();
    let cut = if max_turns == 0 {
        entries.len()
    } else if user_starts.len() <= max_turns {
        return Vec::new();
    } else {
        user_starts
            .get(user_starts.len() - max_turns)
            .copied()
            .unwrap_or(0)
    };
    entries
        .iter()
        .take(cut)
        .filter(|m| !is_pinned(m))
        .map(|m| m.seq)
        .collect()
}

/// Sequence numbers to drop so at most `max` messages remain, oldest first,
/// ignoring those already in `evicted`; then tool results left at the front
/// without their call.
pub(super) fn over_capacity(entries: &[StoredMessage], evicted: &[u64], max: usize) -> Vec<u64> {
    let remaining: Vec<&StoredMessage> = entries
        .iter()
        .filter(|m| !evicted.contains(&m.seq))
        .collect();
    let excess = remaining.len().saturating_sub(max);
    let mut out: Vec<u64> = remaining.iter().take(excess).map(|m| m.seq).collect();
    if excess > 0 {
        out.extend(
            remaining
                .iter()
                .skip(excess)
                .take_while(|m| m.message.role == Role::Tool)
                .map(|m| m.seq),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use agcore_types::ChatMessage;

    use super::*;

    fn entries(messages: Vec<ChatMessage>) -> Vec<StoredMessage> {
        messages
            .into_iter()
            .enumerate()
            .map(|(i, message)| StoredMessage {
                seq: i as u64,
                message,
            })
            .collect()
    }

    #[test]
    fn window_keeps_last_turns_and_system() {
        let e = entries(vec![
            ChatMessage::system("sys"),
            ChatMessage::user("u1"),
            ChatMessage::assistant("a1"),
            ChatMessage::user("u2"),
            ChatMessage::assistant("a2"),
            ChatMessage::user("u3"),
        ]);
        assert_eq!(outside_window(&e, 2), vec![1, 2]);
        assert_eq!(outside_window(&e, 3), Vec::<u64>::new());
        assert_eq!(outside_window(&e, 0), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn capacity_drops_orphaned_tool_results() {
        let e = entries(vec![
            ChatMessage::user("u1"),
            ChatMessage::assistant_tool_calls(vec![]),
            ChatMessage::tool("c1", "result"),
            ChatMessage::assistant("done"),
        ]);
        assert_eq!(over_capacity(&e, &[], 2), vec![0, 1, 2]);
        assert_eq!(over_capacity(&e, &[], 4), Vec::<u64>::new());
        assert_eq!(over_capacity(&e, &[0], 2), vec![1, 2]);
    }
}
