//! One element of an extraction reply read into a [`Fact`].

use serde_json::Value;

use agcore_memory::long_term::Fact;
use agcore_memory::long_term::MemoryType;

pub(super) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The memory id a `replace` field names: a whole number, or a string of
/// one (`"#12"` too); absent, `null`, `""`, `"null"` and `"none"` are no
/// replacement, any other text is refused (a replacement names an id, never
/// text to match).
fn replace_id(value: Option<&Value>) -> Result<Option<i64>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(Some)
            .ok_or_else(|| format!("replace `{n}` is not a memory id")),
        Some(Value::String(s)) => {
            let text = s.trim();
            if text.is_empty() || ["null", "none"].contains(&text.to_lowercase().as_str()) {
                return Ok(None);
            }
            let digits = text.trim_start_matches('#');
            digits
                .parse::<i64>()
                .map(Some)
                .map_err(|_| format!("replace `{text}` is not a memory id"))
        }
        Some(other) => Err(format!("replace is {}, not a memory id", kind(other))),
    }
}

pub(super) fn fact_from(value: Value) -> Result<Fact, String> {
    let Value::Object(map) = value else {
        return Err(format!("expected an object, got {}", kind(&value)));
    };
    let content = match map.get("content") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.trim().to_owned(),
        Some(Value::String(_)) | None => return Err("missing content".into()),
        Some(other) => return Err(format!("content is {}, not a string", kind(other))),
    };
    let (memory_type, fact_type) = match map.get("type").or_else(|| map.get("memory_type")) {
        None | Some(Value::Null) => (MemoryType::User, None),
        Some(Value::String(s)) => {
            let memory_type = MemoryType::parse(s).map_err(|e| e.to_string())?;
            let word = s.trim().to_lowercase();
            let finer = (word != memory_type.as_str()).then_some(word);
            (memory_type, finer)
        }
        Some(other) => return Err(format!("type is {}, not a string", kind(other))),
    };
    let confidence = match map.get("confidence") {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map_err(|_| format!("confidence `{s}` is not a number"))?,
        _ => return Err("missing confidence".into()),
    };
    let confidence = if (1.0..=100.0).contains(&confidence) && confidence > 1.0 {
        confidence / 100.0
    } else {
        confidence
    };
    if !(0.0..=1.0).contains(&confidence) {
        return Err(format!("confidence {confidence} is outside [0, 1]"));
    }
    let tags = match map.get("tags") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        Some(Value::String(s)) => s.split(',').map(|t| t.trim().to_owned()).collect(),
        _ => Vec::new(),
    };
    let replace = replace_id(map.get("replace"))?;
    // `confidence` is in [0, 1] here, so `Fact::new` keeps it as it is.
    let mut fact = Fact::new(content, memory_type, confidence).with_tags(tags);
    fact.fact_type = fact_type;
    fact.replace = replace;
    Ok(fact)
}
