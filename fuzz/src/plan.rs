//! The JSON plan parser: never panics; parsed plans round-trip.

use agcore_agent::{JsonPlanParser, Plan, PlanParser};

use crate::runtime::block_on;

fn parse(raw: &str) -> Option<Plan> {
    block_on(JsonPlanParser.parse(raw, "goal")).ok()
}

fn descriptions(plan: &Plan) -> Vec<String> {
    plan.steps.iter().map(|s| s.description.clone()).collect()
}

fn check_plan(plan: &Plan) {
    assert!(!plan.steps.is_empty(), "a parsed plan has steps");
    for (i, step) in plan.steps.iter().enumerate() {
        assert_eq!(step.index, i);
        assert!(step.status.is_pending());
        assert!(!step.description.is_empty());
        assert_eq!(step.description.trim(), step.description);
    }
}

/// Parses the input; a parsed plan, written back as JSON (bare and in a
/// fence with prose around it), parses to the same steps. The input's lines
/// are also used as step descriptions of a generated plan.
pub fn run(data: &[u8]) {
    let raw = String::from_utf8_lossy(data);
    if let Some(plan) = parse(&raw) {
        check_plan(&plan);
        round_trip(&descriptions(&plan));
    }
    let generated: Vec<String> = raw
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect();
    if !generated.is_empty() {
        round_trip(&generated);
    }
}

fn round_trip(steps: &[String]) {
    let json = serde_json::json!({ "steps": steps }).to_string();
    let bare = parse(&json).expect("a written plan parses");
    check_plan(&bare);
    assert_eq!(descriptions(&bare), steps, "bare JSON round trip");
    let fenced = format!("Here is the plan:\n```json\n{json}\n```\nTell me if it works.");
    // A description holding a fence ends the block early; the `{…}` span still holds the plan.
    let plan = parse(&fenced).expect("a fenced plan parses");
    assert_eq!(descriptions(&plan), steps, "fenced JSON round trip");
}
