use async_trait::async_trait;
use serde_json::Value;

use crate::{AgentError, Plan};

/// Turns a model's raw planning output into a [`Plan`].
///
/// Injected into a task agent, so applications can plan in XML, YAML or
/// their own format; [`JsonPlanParser`] is the reference implementation.
#[async_trait]
pub trait PlanParser: Send + Sync {
    /// Parses `raw` (the model's text) into a plan for `goal`.
    ///
    /// # Errors
    /// [`AgentError::PlanParse`] saying what is wrong with the text.
    async fn parse(&self, raw: &str, goal: &str) -> Result<Plan, AgentError>;
}

/// Parses plans written as JSON: `{"steps": [{"description": "…"}, …]}`.
///
/// Accepts the JSON bare or inside a fenced code block (```` ```json ````) with
/// prose around it; a step may also be a plain string. Rejects with a clear
/// [`AgentError::PlanParse`]: no JSON in the text, invalid JSON, a missing or
/// non-array `steps`, an empty plan, or a step without a non-empty `description`.
#[derive(Debug, Clone, Copy, Default)]
pub struct JsonPlanParser;

#[async_trait]
impl PlanParser for JsonPlanParser {
    async fn parse(&self, raw: &str, goal: &str) -> Result<Plan, AgentError> {
        parse_json_plan(raw, goal)
    }
}

/// The synchronous core of [`JsonPlanParser`].
///
/// # Errors
/// As [`JsonPlanParser`].
pub(crate) fn parse_json_plan(raw: &str, goal: &str) -> Result<Plan, AgentError> {
    let value = find_json_object(raw)?;
    let steps = value
        .get("steps")
        .ok_or_else(|| AgentError::PlanParse("missing `steps` array".into()))?
        .as_array()
        .ok_or_else(|| AgentError::PlanParse("`steps` must be an array".into()))?;
    if steps.is_empty() {
        return Err(AgentError::PlanParse("the plan has no steps".into()));
    }
    let descriptions = steps
        .iter()
        .enumerate()
        .map(|(i, step)| {
            let text = match step {
                Value::String(s) => Some(s.as_str()),
                Value::Object(obj) => obj.get("description").and_then(Value::as_str),
                _ => None,
            };
            match text.map(str::trim) {
                Some(t) if !t.is_empty() => Ok(t.to_owned()),
                _ => Err(AgentError::PlanParse(format!(
                    "step {i} has no non-empty `description`"
                ))),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Plan::new(goal, descriptions))
}

/// Finds the JSON object in `raw`: the whole text, else the first fenced
/// block holding an object, else the span from the first `{` to the last `}`.
fn find_json_object(raw: &str) -> Result<Value, AgentError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(AgentError::PlanParse("the model returned no text".into()));
    }
    let mut candidates: Vec<&str> = vec![trimmed];
    candidates.extend(fenced_blocks(raw));
    if let (Some(start), Some(end)) = (raw.find('{'), raw.rfind('}'))
        && let Some(span) = raw.get(start..=end)
    {
        candidates.push(span);
    }
    let mut first_error = None;
    for candidate in candidates
        .into_iter()
        .filter(|c| c.trim_start().starts_with('{'))
    {
        match serde_json::from_str::<Value>(candidate.trim()) {
            Ok(value) if value.is_object() => return Ok(value),
            Ok(_) => {}
            Err(err) => {
                first_error.get_or_insert(err);
            }
        }
    }
    Err(AgentError::PlanParse(match first_error {
        Some(err) => format!("invalid JSON: {err}"),
        None => "no JSON object found in the model output".into(),
    }))
}

/// Contents of the ```` ``` ```` fenced blocks of `raw`, in order (the info
/// string after the opening fence is skipped).
fn fenced_blocks(raw: &str) -> Vec<&str> {
    let mut blocks = Vec::new();
    let mut rest = raw;
    while let Some(open) = rest.find("```") {
        let after_fence = rest.get(open + 3..).unwrap_or("");
        let body_start = after_fence.find('\n').map_or(after_fence.len(), |n| n + 1);
        let body = after_fence.get(body_start..).unwrap_or("");
        match body.find("```") {
            Some(close) => {
                blocks.push(body.get(..close).unwrap_or(""));
                rest = body.get(close + 3..).unwrap_or("");
            }
            None => break,
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn err_text(raw: &str) -> String {
        match parse_json_plan(raw, "g") {
            Err(AgentError::PlanParse(msg)) => msg,
            other => format!("unexpected: {other:?}"),
        }
    }

    #[test]
    fn bare_json() {
        let plan = parse_json_plan(
            r#"{"steps":[{"description":"a"},{"description":"b"}]}"#,
            "g",
        )
        .unwrap();
        assert_eq!(plan.goal, "g");
        assert_eq!(plan.steps.len(), 2);
        assert_eq!(plan.steps[1].description, "b");
        assert_eq!(plan.steps[1].index, 1);
    }

    #[test]
    fn fenced_json_with_prose_and_braces_in_prose() {
        let raw = "Sure {here} is the plan:\n```json\n{\"steps\": [\"查询天气\", {\"description\": \"写总结\"}]}\n```\nLet me know {if} that works.";
        let plan = parse_json_plan(raw, "g").unwrap();
        assert_eq!(plan.steps[0].description, "查询天气");
        assert_eq!(plan.steps[1].description, "写总结");
    }

    #[test]
    fn clear_errors() {
        assert!(err_text("").contains("no text"));
        assert!(err_text("I cannot plan that.").contains("no JSON object"));
        assert!(err_text("{\"steps\": [").contains("invalid JSON"));
        assert!(err_text("{\"plan\": []}").contains("missing `steps`"));
        assert!(err_text("{\"steps\": {}}").contains("must be an array"));
        assert!(err_text("{\"steps\": []}").contains("no steps"));
        assert!(
            err_text("{\"steps\": [{\"description\": \"a\"}, {\"title\": \"b\"}]}")
                .contains("step 1")
        );
        assert!(err_text("{\"steps\": [\"   \"]}").contains("step 0"));
    }

    proptest! {
        #[test]
        fn never_panics(raw in ".*") {
            let _ = parse_json_plan(&raw, "g");
        }

        #[test]
        fn fenced_plans_round_trip(
            descriptions in proptest::collection::vec("[a-zA-Z0-9 一-龥]{0,20}[a-zA-Z一-龥]", 1..8),
            prose in "[a-zA-Z .,:!\n]{0,40}",
        ) {
            let steps: Vec<_> = descriptions.iter().map(|d| serde_json::json!({"description": d})).collect();
            let json = serde_json::json!({"steps": steps}).to_string();
            let raw = format!("{prose}\n```json\n{json}\n```\n{prose}");
            let plan = parse_json_plan(&raw, "g").unwrap();
            let parsed: Vec<_> = plan.steps.iter().map(|s| s.description.clone()).collect();
            let expected: Vec<_> = descriptions.iter().map(|d| d.trim().to_owned()).collect();
            prop_assert_eq!(parsed, expected);
        }
    }
}
