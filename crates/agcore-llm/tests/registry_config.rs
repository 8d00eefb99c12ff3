//! `ProviderRegistry` built from configuration.
#![cfg(test)]

use std::sync::Arc;

use agcore_llm::{LlmError, MockProvider, ProviderEntry, ProviderRegistry, RegistryConfig};

const CONFIG: &str = r#"{
  "default": "local",
  "providers": [
    {"name": "openai", "kind": "openai", "model": "gpt-4o-mini"},
    {"name": "local", "kind": "openai", "base_url": "http://127.0.0.1:8080/v1",
     "model": "smollm2", "headers": {"x-team": "agents"}}
  ]
}"#;

#[cfg(feature = "openai")]
#[test]
fn builds_openai_providers_from_config() {
    let config: RegistryConfig = serde_json::from_str(CONFIG).unwrap();
    let registry = ProviderRegistry::from_config(&config).unwrap();
    assert_eq!(registry.len(), 2);
    assert_eq!(
        registry.names().collect::<Vec<_>>(),
        vec!["local", "openai"]
    );
    assert_eq!(registry.default_name(), Some("local"));
    assert_eq!(registry.default_provider().unwrap().name(), "local");
    assert_eq!(registry.get("openai").unwrap().name(), "openai");
    assert_eq!(registry.model("local"), Some("smollm2"));
    assert_eq!(registry.model("openai"), Some("gpt-4o-mini"));
}

#[cfg(not(feature = "openai"))]
#[test]
fn openai_entries_need_the_feature() {
    let config: RegistryConfig = serde_json::from_str(CONFIG).unwrap();
    let err = ProviderRegistry::from_config(&config).unwrap_err();
    assert!(matches!(err, LlmError::Config(ref m) if m.contains("`openai` feature")));
}

#[test]
fn unknown_names_are_config_errors() {
    let mut registry = ProviderRegistry::new();
    assert!(matches!(
        registry.default_provider(),
        Err(LlmError::Config(_))
    ));
    registry.register("mock", Arc::new(MockProvider::new()), None);
    let Err(err) = registry.get("gpt") else {
        panic!("unknown name accepted");
    };
    assert!(
        matches!(err, LlmError::Config(ref m) if m.contains("unknown provider `gpt`") && m.contains("mock"))
    );
    assert!(registry.set_default("gpt").is_err());
    assert_eq!(registry.default_name(), Some("mock"));
}

#[test]
fn bad_configs_are_rejected() {
    let unknown_default = RegistryConfig::new(vec![]).with_default("nope");
    assert!(matches!(
        ProviderRegistry::from_config(&unknown_default),
        Err(LlmError::Config(_))
    ));

    let twice = RegistryConfig::new(vec![
        ProviderEntry::openai("a", "http://127.0.0.1:1/v1"),
        ProviderEntry::openai("a", "http://127.0.0.1:2/v1"),
    ]);
    let err = ProviderRegistry::from_config(&twice).unwrap_err();
    assert!(
        matches!(err, LlmError::Config(ref m) if m.contains("twice")),
        "{err}"
    );

    let kind: Result<RegistryConfig, _> =
        serde_json::from_str(r#"{"providers": [{"name": "x", "kind": "carrier-pigeon"}]}"#);
    assert!(kind.is_err());

    #[cfg(feature = "openai")]
    {
        let missing_key = RegistryConfig::new(vec![
            ProviderEntry::openai("k", "http://127.0.0.1:1/v1")
                .with_api_key_env("AGCORE_TEST_SURELY_UNSET_KEY_VAR"),
        ]);
        let err = ProviderRegistry::from_config(&missing_key).unwrap_err();
        assert!(
            matches!(err, LlmError::Config(ref m) if m.contains("AGCORE_TEST_SURELY_UNSET_KEY_VAR"))
        );
        let bad_url = RegistryConfig::new(vec![ProviderEntry::openai("u", "ftp://x")]);
        assert!(matches!(
            ProviderRegistry::from_config(&bad_url),
            Err(LlmError::Config(_))
        ));
    }
}

#[test]
fn entries_round_trip_through_serde() {
    let entry = ProviderEntry::openai("local", "http://127.0.0.1:8080/v1")
        .with_model("smollm2")
        .with_api_key_env("LOCAL_KEY")
        .with_header("x-team", "agents");
    let json = serde_json::to_string(&entry).unwrap();
    assert_eq!(
        json,
        r#"{"name":"local","kind":"openai","base_url":"http://127.0.0.1:8080/v1","api_key_env":"LOCAL_KEY","model":"smollm2","headers":{"x-team":"agents"}}"#
    );
    let back: ProviderEntry = serde_json::from_str(&json).unwrap();
    assert_eq!(back, entry);
}
