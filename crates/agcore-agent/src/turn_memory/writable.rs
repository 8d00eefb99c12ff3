//! [`WritableTypes`]: which memory types an agent may write.

use agcore_memory::long_term::MemoryType;

/// The memory types an agent may create, change or delete through
/// `memory_save` and fact extraction (per-agent memory configuration); the
/// default allows all four. Reading (`memory_recall`, prefetch) is not
/// restricted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WritableTypes(Option<Vec<MemoryType>>);

impl WritableTypes {
    /// Every type (the default).
    pub fn all() -> Self {
        Self(None)
    }

    /// Only `types` (an empty list allows none: memory is read-only).
    pub fn only<I: IntoIterator<Item = MemoryType>>(types: I) -> Self {
        let mut types: Vec<MemoryType> = types.into_iter().collect();
        types.dedup();
        Self(Some(types))
    }

    /// Whether `memory_type` may be written.
    pub fn allows(&self, memory_type: MemoryType) -> bool {
        self.0
            .as_ref()
            .is_none_or(|types| types.contains(&memory_type))
    }

    /// Why `memory_type` may not be written, or `None` when it may:
    /// "this agent may not write `project` memories (it may write: user)".
    pub fn refusal(&self, memory_type: MemoryType) -> Option<String> {
        if self.allows(memory_type) {
            return None;
        }
        let allowed: Vec<String> = self.0.iter().flatten().map(ToString::to_string).collect();
        let allowed = if allowed.is_empty() {
            "none".to_owned()
        } else {
            allowed.join(", ")
        };
        Some(format!(
            "this agent may not write `{memory_type}` memories (it may write: {allowed})"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_by_default_and_refusals_name_what_is_allowed() {
        assert!(WritableTypes::default().allows(MemoryType::Project));
        let only = WritableTypes::only([MemoryType::User, MemoryType::Feedback]);
        assert!(only.allows(MemoryType::User));
        assert_eq!(
            only.refusal(MemoryType::Project).unwrap(),
            "this agent may not write `project` memories (it may write: user, feedback)"
        );
        assert!(
            WritableTypes::only([])
                .refusal(MemoryType::User)
                .unwrap()
                .ends_with("(it may write: none)")
        );
    }
}
