//! The attachment configuration (`memory.stores`, `agents[].memories`) in
//! YAML and TOML: parsing never panics, and an accepted configuration written
//! back (as JSON, which is YAML 1.2, or as TOML) reads back the same.

use agcore_agent::attach::{AttachConfig, ConfigFormat};

use crate::input::Input;

/// The first byte picks the format (even: YAML, odd: TOML), the rest is the file.
pub fn run(data: &[u8]) {
    let mut input = Input::new(data);
    let format = if input.byte().is_multiple_of(2) {
        ConfigFormat::Yaml
    } else {
        ConfigFormat::Toml
    };
    let text = input.text();
    let Ok(config) = AttachConfig::parse(&text, format, None) else {
        return;
    };
    for agent in &config.agents {
        for attachment in &agent.memories {
            assert!(
                config.store(&attachment.name).is_some(),
                "an attachment names an undeclared store"
            );
        }
    }
    let mut value = serde_json::to_value(&config).expect("a configuration serializes");
    // An unset header serializes as `null`, which the parser (rightly) refuses
    // as a header: leave the key out, as a file would.
    if let Some(memory) = value.get_mut("memory").and_then(|m| m.as_object_mut())
        && memory.get("attachment_header").is_some_and(|h| h.is_null())
    {
        memory.remove("attachment_header");
    }
    let json = yaml_printable(&value.to_string());
    let back = AttachConfig::parse(&json, ConfigFormat::Yaml, None)
        .unwrap_or_else(|e| panic!("written as JSON, the configuration is refused: {e}\n{json}"));
    assert_eq!(back, config, "JSON/YAML round trip\n{json}");
    // TOML has no null; configurations holding one are not written as TOML.
    if let Ok(toml) = toml::to_string(&config) {
        let back = AttachConfig::parse(&toml, ConfigFormat::Toml, None).unwrap_or_else(|e| {
            panic!("written as TOML, the configuration is refused: {e}\n{toml}")
        });
        assert_eq!(back, config, "TOML round trip\n{toml}");
    }
}

/// `json` with the characters YAML does not allow unescaped (C1 controls,
/// DEL, U+FFFE, U+FFFF; JSON allows them raw) and the line separators NEL,
/// U+2028 and U+2029 written as `\uXXXX`: only then is JSON text also YAML.
fn yaml_printable(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        let printable = matches!(c, '\t' | '\n' | '\r' | ' '..='~')
            || (('\u{A0}'..='\u{D7FF}').contains(&c) && !matches!(c, '\u{2028}' | '\u{2029}'))
            || ('\u{E000}'..='\u{FFFD}').contains(&c)
            || c >= '\u{10000}';
        if printable {
            out.push(c);
        } else {
            out.push_str(&format!("\\u{:04X}", u32::from(c)));
        }
    }
    out
}
