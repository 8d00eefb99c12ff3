//! `cargo xtask examples`: builds every example of `examples/`, runs each with a time limit
//! and checks its exit code and one line of its output.
//!
//! The build is `cargo build --workspace --all-features --examples`, the dependency
//! features of the test step, so `ci` compiles nothing new for it.

mod run;

use std::time::Duration;

use crate::step::Context;
use run::{ServiceEnv, build, run_one, services_required};

/// How long one example may run.
const LIMIT: Duration = Duration::from_secs(120);

/// What a run needs besides the example binary.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Needs {
    /// Nothing: scripted providers, temporary directories.
    Offline,
    /// The OpenAI-compatible llama.cpp server of `scripts/services.sh start`.
    Endpoint,
    /// The MCP reference server of `scripts/services.sh start` (over stdio).
    Mcp,
}

impl Needs {
    /// `(variable of .services/env, variable the example reads)` pairs.
    fn vars(self) -> &'static [(&'static str, &'static str)] {
        match self {
            Self::Offline => &[],
            Self::Endpoint => &[
                ("AGCORE_TEST_OPENAI_BASE_URL", "OPENAI_BASE_URL"),
                ("AGCORE_TEST_OPENAI_MODEL", "AGCORE_MODEL"),
            ],
            Self::Mcp => &[("AGCORE_TEST_MCP_STDIO_CMD", "AGCORE_TEST_MCP_STDIO_CMD")],
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Offline => "offline",
            Self::Endpoint => "endpoint",
            Self::Mcp => "mcp",
        }
    }
}

/// Variables removed from every run, so the caller's shell cannot switch an offline run to
/// a live endpoint or point a run at another server than the one checked.
const CLEARED: &[&str] = &[
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "AGCORE_MODEL",
    "AGCORE_MCP_COMMAND",
    "AGCORE_MCP_URL",
    "AGCORE_TEST_MCP_STDIO_CMD",
];

/// One checked run: the example, what it needs, and a substring one stdout line must hold.
struct Expectation {
    example: &'static str,
    needs: Needs,
    line: &'static str,
}

const fn expect(example: &'static str, needs: Needs, line: &'static str) -> Expectation {
    Expectation {
        example,
        needs,
        line,
    }
}

/// Every `[[example]]` of `examples/Cargo.toml` has at least one row; each line proves the
/// example did its job (a result, not a banner).
const EXPECTATIONS: &[Expectation] = &[
    expect("quick_start", Needs::Endpoint, "history: "),
    expect("simple_visit", Needs::Endpoint, "usage: "),
    expect(
        "prompt_composer",
        Needs::Offline,
        "missing variable reported: `condition`",
    ),
    expect(
        "custom_tool",
        Needs::Offline,
        "permission denied for `delete_file`: /etc/passwd is outside /tmp",
    ),
    expect(
        "mcp_client",
        Needs::Mcp,
        "everything__echo -> Echo: 你好, MCP",
    ),
    expect(
        "conversation_memory",
        Needs::Offline,
        "conv:session-1:00000000000000000015  消息 7: 第 7 个问题",
    ),
    expect(
        "knowledge_search",
        Needs::Offline,
        "re-imported 4 pages into a fresh store",
    ),
    expect("agent_session", Needs::Offline, "turns: 2, requests: 3"),
    expect(
        "task_agent",
        Needs::Offline,
        "completed 2, failed 1, finished: true",
    ),
    expect(
        "streaming_events",
        Needs::Offline,
        "Streaming works, 流式输出也可以。",
    ),
    expect("streaming_events", Needs::Endpoint, "[turn completed: "),
    expect("full_integration", Needs::Endpoint, " messages stored"),
    expect(
        "docs_recall",
        Needs::Offline,
        "docs/testing.md › Testing › Tests against real servers",
    ),
    expect(
        "long_term_memory",
        Needs::Offline,
        "[user] The user lives in Lyon (source: extraction)",
    ),
    expect(
        "memory_attachments",
        Needs::Offline,
        "written to board: User: How hot should the water be for green tea?",
    ),
    expect(
        "custom_memory_store",
        Needs::Offline,
        "team_rules recalled for \"When do deploys happen?\": Deploys happen on Tuesdays",
    ),
    expect("custom_backend", Needs::Offline, "\"绿茶\" -> pref:茶"),
];

/// How one run ended.
#[derive(Debug, PartialEq, Eq)]
enum Verdict {
    /// With the stdout line that holds the expected text.
    Passed(String),
    Skipped(String),
    Failed(String),
}

/// Builds the examples once, runs every row of the table and prints a summary.
///
/// # Errors
/// A message when the table and `examples/Cargo.toml` disagree, the build fails, or a run
/// fails (non-zero exit, time limit, missing line, or missing servers when they are required).
pub fn examples(ctx: &Context) -> Result<(), String> {
    let manifest = ctx.root.join("examples").join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|err| format!("cannot read {}: {err}", manifest.display()))?;
    check_table(&example_names(&text)?)?;
    let binaries = build(ctx, &manifest)?;
    let services = ServiceEnv::load(ctx)?;
    let required = services_required(ctx);

    let mut rows = Vec::new();
    for expectation in EXPECTATIONS {
        let name = format!("{} ({})", expectation.example, expectation.needs.label());
        let (verdict, seconds) = match binaries.get(expectation.example) {
            None => (Verdict::Failed("no executable was built".into()), 0.0),
            Some(binary) => run_one(ctx, binary, expectation, &services, required),
        };
        match &verdict {
            Verdict::Passed(line) => println!("==> [example {name}] ok ({seconds:.1} s): {line}"),
            Verdict::Skipped(why) => println!("==> [example {name}] skipped: {why}"),
            Verdict::Failed(why) => println!("==> [example {name}] FAILED: {why}"),
        }
        rows.push((expectation, verdict, seconds));
    }

    println!(
        "\n{:<22} {:<9} {:<8} {:>7}",
        "example", "needs", "result", "seconds"
    );
    for (expectation, verdict, seconds) in &rows {
        let (result, seconds) = match verdict {
            Verdict::Passed(_) => ("passed", format!("{seconds:.1}")),
            Verdict::Skipped(_) => ("skipped", "-".to_owned()),
            Verdict::Failed(_) => ("FAILED", format!("{seconds:.1}")),
        };
        println!(
            "{:<22} {:<9} {result:<8} {seconds:>7}",
            expectation.example,
            expectation.needs.label()
        );
    }
    let failed: Vec<String> = rows
        .iter()
        .filter_map(|(expectation, verdict, _)| match verdict {
            Verdict::Failed(why) => Some(format!(
                "{} ({}): {why}",
                expectation.example,
                expectation.needs.label()
            )),
            _ => None,
        })
        .collect();
    if failed.is_empty() {
        println!("\n==> examples passed");
        Ok(())
    } else {
        Err(format!(
            "{} example run(s) failed:\n  {}",
            failed.len(),
            failed.join("\n  ")
        ))
    }
}

/// The `name` of every `[[example]]` in the text of a `Cargo.toml`.
fn example_names(manifest: &str) -> Result<Vec<String>, String> {
    let table: toml::Table = manifest
        .parse()
        .map_err(|err| format!("examples/Cargo.toml: {err}"))?;
    let entries = table
        .get("example")
        .and_then(toml::Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    entries
        .iter()
        .map(|entry| {
            entry
                .get("name")
                .and_then(toml::Value::as_str)
                .map(str::to_owned)
                .ok_or_else(|| {
                    format!("examples/Cargo.toml: an [[example]] without a name: {entry}")
                })
        })
        .collect()
}

/// Every declared example has a row, and every row names a declared example.
fn check_table(names: &[String]) -> Result<(), String> {
    let mut problems: Vec<String> = names
        .iter()
        .filter(|name| !EXPECTATIONS.iter().any(|e| e.example == name.as_str()))
        .map(|name| format!("example `{name}` has no expected line in xtask/src/examples.rs"))
        .collect();
    problems.extend(
        EXPECTATIONS
            .iter()
            .filter(|e| !names.iter().any(|name| name == e.example))
            .map(|e| {
                format!(
                    "xtask/src/examples.rs names `{}`, which examples/Cargo.toml does not declare",
                    e.example
                )
            }),
    );
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n  "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_covers_the_declared_examples() {
        let manifest = Context::new().root.join("examples").join("Cargo.toml");
        let names = example_names(&std::fs::read_to_string(manifest).unwrap()).unwrap();
        assert!(names.iter().any(|name| name == "simple_visit"), "{names:?}");
        check_table(&names).unwrap();
    }

    #[test]
    fn an_example_without_a_row_and_a_row_without_an_example_are_errors() {
        let mut names: Vec<String> = EXPECTATIONS.iter().map(|e| e.example.to_owned()).collect();
        names.retain(|name| name != "task_agent");
        names.push("brand_new".to_owned());
        let err = check_table(&names).unwrap_err();
        assert!(
            err.contains("example `brand_new` has no expected line"),
            "{err}"
        );
        assert!(
            err.contains("names `task_agent`, which examples/Cargo.toml does not declare"),
            "{err}"
        );
    }

    #[test]
    fn example_names_are_read_from_the_manifest() {
        let manifest = "[package]\nname = \"x\"\n\n[[example]]\nname = \"a\"\npath = \"a.rs\"\n\n[[example]]\nname = \"b\"\n";
        assert_eq!(example_names(manifest).unwrap(), ["a", "b"]);
        assert!(
            example_names("[package]\nname = \"x\"\n")
                .unwrap()
                .is_empty()
        );
        let err = example_names("[[example]]\npath = \"a.rs\"\n").unwrap_err();
        assert!(err.contains("without a name"), "{err}");
    }
}
