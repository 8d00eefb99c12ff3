//! `[memory]` / `[memory_agent]` configuration: the example file parses to the
//! defaults, keys override, mistakes are clear errors, injection rules hold.
#![cfg(test)]

use std::time::Duration;

use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    BackendKind, InjectConfig, LongTermTrigger, MemorySettings, parse_duration,
};

const EXAMPLE: &str = include_str!("../../../config.example.toml");

#[test]
fn the_example_file_documents_the_defaults() {
    let parsed = MemorySettings::from_toml_str(EXAMPLE).unwrap();
    assert_eq!(parsed, MemorySettings::default());
    assert_eq!(
        MemorySettings::from_toml_str("").unwrap(),
        MemorySettings::default()
    );
}

#[test]
fn keys_override_and_other_sections_are_ignored() {
    let s = MemorySettings::from_toml_str(
        r#"
[llm]
model = "x"
[memory.long_term]
backend = "memory"
archive_threshold = 0.5
[memory.long_term.weights]
reference_boost = 1.0
[memory.inject]
long_term_trigger = "keywords"
trigger_keywords = ["项目", "deadline"]
[memory_agent]
timeout = "1.5m"
[memory_agent.extract]
min_confidence = 0.9
"#,
    )
    .unwrap();
    assert_eq!(s.memory.long_term.backend, BackendKind::Memory);
    let rules = s.memory.long_term.weight_rules();
    assert_eq!((rules.archive_threshold, rules.reference_boost), (0.5, 1.0));
    assert_eq!(s.memory.inject.long_term_trigger, LongTermTrigger::Keywords);
    assert_eq!(s.memory_agent.timeout().unwrap(), Duration::from_secs(90));
    assert_eq!(s.memory_agent.extract.min_confidence, 0.9);
    assert_eq!(s.memory_agent.extract.batch_size, 5);
}

#[test]
fn mistakes_are_clear_errors() {
    for (text, needle) in [
        ("[memory]\nenabeld = true", "enabeld"),
        (
            "[memory.long_term]\nbackend = \"redis\"",
            "Redis holds no long-term memory",
        ),
        ("[memory_agent]\ntimeout = \"soon\"", "soon"),
        (
            "[memory_agent.extract]\nmin_confidence = 1.5",
            "min_confidence",
        ),
        (
            "[memory.long_term.weights]\nunreferenced_decay = 2.0",
            "unreferenced_decay",
        ),
        (
            "[memory.long_term.weights]\narchive_threshold = 0.1",
            "archive_threshold",
        ),
        ("[memory\n", "memory configuration"),
    ] {
        let err = MemorySettings::from_toml_str(text).unwrap_err();
        assert!(matches!(err, MemoryError::InvalidInput(_)), "{text}");
        assert!(err.to_string().contains(needle), "{text}: {err}");
    }
    assert_eq!(parse_duration("250ms").unwrap(), Duration::from_millis(250));
    assert_eq!(parse_duration(" 2h ").unwrap(), Duration::from_secs(7200));
    assert!(parse_duration("-1s").is_err() && parse_duration("5").is_err());
}

#[test]
fn injection_rules() {
    let mut inject = MemorySettings::default().memory.inject;
    assert!(
        inject.should_inject("What did I say about tea?", 0),
        "every turn by default, the first included"
    );
    inject.first_round_empty = true;
    assert!(
        !inject.should_inject("What did I say about tea?", 0),
        "first round is empty"
    );
    assert!(inject.should_inject("What did I say about tea?", 2));
    assert!(
        !inject.should_inject("  ok ", 2),
        "shorter than min_query_length"
    );
    assert!(
        inject.should_inject("喝什么茶", 2),
        "four CJK characters are long enough"
    );
    inject.first_round_empty = false;
    assert!(inject.should_inject("What did I say about tea?", 0));
    inject.long_term_trigger = LongTermTrigger::Keywords;
    inject.trigger_keywords = vec!["Deadline".into(), "项目".into()];
    assert!(inject.should_inject("when is the DEADLINE again", 1));
    assert!(inject.should_inject("这个项目进展如何", 1));
    assert!(!inject.should_inject("tell me a joke please", 1));
}

#[test]
fn keywords_trigger_without_a_list_uses_the_built_in_detector() {
    let mut inject = InjectConfig::default();
    inject.long_term_trigger = LongTermTrigger::Keywords;
    assert!(inject.trigger_keywords.is_empty());
    assert!(inject.should_inject("What did I tell you last time?", 1));
    assert!(inject.should_inject("Is the staging_db migration done?", 1));
    assert!(inject.should_inject("你还记得我上次说的事吗", 1));
    assert!(inject.should_inject("服务器的配置改了吗", 1));
    assert!(!inject.should_inject("tell me a joke please", 1));
    assert!(!inject.should_inject("谢谢你的帮助", 1));
    inject.trigger_keywords = vec!["  ".into()];
    assert!(inject.should_inject("What did I tell you last time?", 1));
}
