//! [`parse_facts`]: a model reply read into facts, tolerant of code fences,
//! surrounding prose and arrays cut off mid-way.

use serde_json::Value;

use super::ParsedFacts;
use super::element::{fact_from, kind};
use agcore_memory::MemoryError;

/// The text inside the first Markdown code fence, or all of `text`.
fn strip_fence(text: &str) -> &str {
    let Some(start) = text.find("```") else {
        return text;
    };
    let after = text.get(start + 3..).unwrap_or_default();
    let body = after
        .find('\n')
        .map_or(after, |nl| after.get(nl + 1..).unwrap_or_default());
    body.find("```")
        .map_or(body, |end| body.get(..end).unwrap_or_default())
}

/// `json` with raw control characters inside string literals escaped
/// (`\n`, `\r`, `\t`, `\u00XX`): JSON forbids them there, but grammars of
/// some servers let a model emit a raw line break inside a string.
fn escape_raw_controls(json: &str) -> std::borrow::Cow<'_, str> {
    if !json.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(json);
    }
    let mut out = String::with_capacity(json.len() + 8);
    let (mut in_string, mut escaped) = (false, false);
    for c in json.chars() {
        if in_string && !escaped && u32::from(c) < 0x20 {
            match c {
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                other => out.push_str(&format!("\\u{:04x}", u32::from(other))),
            }
            continue;
        }
        if c == '"' && !escaped {
            in_string = !in_string;
        }
        escaped = in_string && c == '\\' && !escaped;
        out.push(c);
    }
    std::borrow::Cow::Owned(out)
}

/// Parses a model reply into facts. Accepts `{"facts": [...]}`, a bare array
/// or a single fact object, inside a code fence or surrounded by prose;
/// recovers the complete elements of an array cut off mid-way; reads raw
/// line breaks and other control characters inside strings as if escaped. Element
/// fields: `content` (required), `type` (default `user`; also `preference`
/// and `fact`, kept in [`Fact::fact_type`](agcore_memory::long_term::Fact::fact_type)), `tags`, `confidence` (required,
/// 0–1; 1–100 read as percent), `replace` (a memory id, a number or a string
/// of digits; text is refused). Never panics.
///
/// # Errors
/// [`MemoryError::Serialization`] when the reply holds no JSON value or one
/// that is not a fact list (text, number, object without `facts`).
///
/// # Examples
/// ```
/// use agcore_agent::turn_memory::parse_facts;
/// let reply = "Here you go:\n```json\n{\"facts\": [{\"content\": \"Likes tea\", \"type\": \"user\", \"confidence\": 0.9}]}\n```";
/// let parsed = parse_facts(reply)?;
/// assert_eq!(parsed.facts[0].content, "Likes tea");
/// # Ok::<(), agcore_memory::MemoryError>(())
/// ```
pub fn parse_facts(reply: &str) -> Result<ParsedFacts, MemoryError> {
    let text = strip_fence(reply);
    let start = text.find(['{', '[']).ok_or_else(|| {
        MemoryError::Serialization("fact extraction: the reply holds no JSON".into())
    })?;
    let escaped = escape_raw_controls(text.get(start..).unwrap_or_default());
    let json = escaped.as_ref();
    let mut stream = serde_json::Deserializer::from_str(json).into_iter::<Value>();
    let (elements, truncated) = match stream.next() {
        Some(Ok(value)) => (elements_of(value)?, false),
        Some(Err(e)) if e.is_eof() => (salvage(json), true),
        Some(Err(e)) => {
            return Err(MemoryError::Serialization(format!(
                "fact extraction: malformed JSON: {e}"
            )));
        }
        None => {
            return Err(MemoryError::Serialization(
                "fact extraction: the reply holds no JSON".into(),
            ));
        }
    };
    let mut parsed = ParsedFacts {
        truncated,
        ..ParsedFacts::default()
    };
    for (n, element) in elements.into_iter().enumerate() {
        match fact_from(element) {
            Ok(fact) => parsed.facts.push(fact),
            Err(reason) => parsed.rejected.push(format!("fact {}: {reason}", n + 1)),
        }
    }
    Ok(parsed)
}

fn elements_of(value: Value) -> Result<Vec<Value>, MemoryError> {
    match value {
        Value::Array(items) => Ok(items),
        Value::Object(mut map) => match map.remove("facts") {
            Some(Value::Array(items)) => Ok(items),
            Some(Value::Null) => Ok(Vec::new()),
            Some(_) => Err(MemoryError::Serialization(
                "fact extraction: `facts` is not an array".into(),
            )),
            None if map.contains_key("content") => Ok(vec![Value::Object(map)]),
            None => Err(MemoryError::Serialization(
                "fact extraction: expected {\"facts\": [...]}, an array or a fact object".into(),
            )),
        },
        other => Err(MemoryError::Serialization(format!(
            "fact extraction: expected a fact list, got {}",
            kind(&other)
        ))),
    }
}

/// The complete elements of a truncated array (`[...` or `{"facts": [...`).
fn salvage(json: &str) -> Vec<Value> {
    let open = match (json.find('['), json.starts_with('{')) {
        (Some(i), true) if json.get(..i).is_some_and(|p| p.contains("\"facts\"")) => i,
        (Some(0), false) => 0,
        _ => return Vec::new(),
    };
    let mut rest = json.get(open + 1..).unwrap_or_default();
    let mut out = Vec::new();
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ',');
        if rest.is_empty() || rest.starts_with(']') {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                let used = stream.byte_offset();
                out.push(v);
                rest = rest.get(used..).unwrap_or_default();
            }
            _ => break,
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use agcore_memory::long_term::MemoryType;

    #[test]
    fn raw_control_characters_inside_strings_are_read() {
        let reply = "{\"facts\" : [{\"content\": \"Lives in\nLyon\t(FR) \\\"old\\\"\", \"type\": \"user\", \"confidence\": 0.9}]}";
        let parsed = parse_facts(reply).unwrap();
        assert_eq!(parsed.facts[0].content, "Lives in\nLyon\t(FR) \"old\"");
        // Control characters between tokens are whitespace and stay as they are.
        let spaced = "{\n\"facts\":\t[]\r\n}";
        assert_eq!(escape_raw_controls(spaced), spaced);
        assert!(parse_facts(spaced).unwrap().facts.is_empty());
    }

    #[test]
    fn object_array_and_single_forms() {
        let a = parse_facts(
            r#"{"facts":[{"content":"A","type":"project","confidence":0.8,"tags":["x"]}]}"#,
        )
        .unwrap();
        assert_eq!(a.facts[0].memory_type, MemoryType::Project);
        assert_eq!(a.facts[0].tags, vec!["x"]);
        let b = parse_facts(r#"[{"content":"B","confidence":"0.5","replace":"12"},{"content":"B2","confidence":1,"replace":7,"type":"Preference"}]"#).unwrap();
        assert_eq!(b.facts[0].replace, Some(12));
        assert_eq!(b.facts[1].replace, Some(7));
        assert_eq!(b.facts[1].memory_type, MemoryType::User);
        assert_eq!(b.facts[1].fact_type.as_deref(), Some("preference"));
        assert_eq!(b.facts[0].fact_type, None);
        let c = parse_facts(r#"{"content":"C","confidence":90}"#).unwrap();
        assert!((c.facts[0].confidence - 0.9).abs() < 1e-12);
        assert!(parse_facts(r#"{"facts":[]}"#).unwrap().facts.is_empty());
    }

    #[test]
    fn truncated_replies_keep_complete_elements() {
        let p = parse_facts(
            r#"```json
{"facts":[{"content":"A","confidence":0.9},{"content":"B","conf"#,
        )
        .unwrap();
        assert!(p.truncated);
        assert_eq!(p.facts.len(), 1);
        assert_eq!(p.facts[0].content, "A");
    }

    #[test]
    fn invalid_elements_are_reported() {
        let p = parse_facts(r#"[{"content":""},{"content":"x"},{"content":"y","confidence":2.5e3},7,{"content":"z","type":"alien","confidence":1}]"#).unwrap();
        assert!(p.facts.is_empty());
        assert_eq!(p.rejected.len(), 5, "{:?}", p.rejected);
        assert!(p.rejected[1].contains("missing confidence"));
    }

    #[test]
    fn a_replace_naming_text_is_refused() {
        let p = parse_facts(
            r#"[{"content":"A","confidence":1,"replace":"the user likes tea"},{"content":"B","confidence":1,"replace":"none"},{"content":"C","confidence":1,"replace":1.5}]"#,
        )
        .unwrap();
        assert_eq!(p.facts.len(), 1);
        assert_eq!(p.facts[0].replace, None);
        assert_eq!(p.rejected.len(), 2, "{:?}", p.rejected);
        assert!(p.rejected[0].contains("not a memory id"));
    }

    #[test]
    fn clear_errors_for_non_fact_replies() {
        for reply in [
            "no json here",
            "\"just text\"",
            "{\"answer\": 1}",
            "{\"facts\": 3}",
            "[1, }",
        ] {
            let err = parse_facts(reply).unwrap_err();
            assert!(
                matches!(err, MemoryError::Serialization(_)),
                "{reply}: {err}"
            );
        }
    }
}
