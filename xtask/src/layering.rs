//! `layering`: the check step that keeps lower crates free of what sits above
//! them, as resolved by Cargo (`cargo tree`), not as written in manifests.

use std::process::Command;

use crate::step::Context;

/// A crate and what its normal build must never pull in: package names, or
/// `package feature "name"` as `cargo tree -e features` prints it.
const RULES: &[(&str, &[&str])] = &[
    ("agcore-types", &["agcore-"]),
    ("agcore-config", &["agcore-"]),
    (
        "agcore-search",
        &["agcore-memory", "agcore-llm", "agcore-prompt"],
    ),
    (
        "agcore-memory",
        &[
            "agcore-prompt",
            "agcore-llm feature \"chat\"",
            "agcore-agent",
            "agcore-tools",
        ],
    ),
    (
        "agcore-memory-sqlite",
        &[
            "agcore-prompt",
            "agcore-llm feature \"chat\"",
            "agcore-agent",
        ],
    ),
];

/// Fails when a crate of [`RULES`] pulls in what it must not, then checks that
/// `agcore-llm` builds without its `chat` feature (the build the memory
/// crates get).
///
/// # Errors
/// A message naming the crate and what it pulls in, or the failing build.
pub fn layering(ctx: &Context) -> Result<(), String> {
    println!("\n==> [layering] {} crates", RULES.len());
    for (krate, forbidden) in RULES {
        let tree = tree(ctx, krate)?;
        for line in tree.lines().filter(|l| !l.starts_with(krate)) {
            if let Some(hit) = forbidden.iter().find(|f| line.starts_with(**f)) {
                return Err(format!(
                    "step `layering`: {krate} pulls in `{line}` (rule: never `{hit}`)"
                ));
            }
        }
    }
    ctx.run(
        "layering: agcore-llm without chat",
        ctx.cargo(&[
            "check",
            "-p",
            "agcore-llm",
            "--no-default-features",
            "--features",
            "openai",
        ]),
    )
}

fn tree(ctx: &Context, krate: &str) -> Result<String, String> {
    let mut command: Command = ctx.cargo(&[
        "tree",
        "-p",
        krate,
        "-e",
        "normal,features",
        "--prefix",
        "none",
    ]);
    ctx.prepare(&mut command);
    let output = command
        .output()
        .map_err(|e| format!("step `layering`: cannot run cargo tree: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "step `layering`: cargo tree -p {krate} failed: {}",
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}
