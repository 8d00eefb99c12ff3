//! Every document a reader is pointed at exists: relative Markdown links
//! (and their `#anchor`s, for Markdown targets) in every `*.md` file of the
//! repository, and `docs/….md` / `crates/….md` paths named in the comments
//! of `crates/**/*.rs`. A failure lists every broken reference with its
//! file and line.

use std::collections::HashMap;
use std::fs;
use std::path::{Component, Path, PathBuf};

/// The repository root (this crate is `crates/agcore`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Files under `dir` whose name ends with `suffix`, skipping build output,
/// test-service state and hidden folders.
fn files_with_suffix(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if name.starts_with('.') || name == "target" || name == "node_modules" {
                continue;
            }
            files_with_suffix(&path, suffix, out);
        } else if kind.is_file() && name.ends_with(suffix) {
            out.push(path);
        }
    }
}

/// `path` with `.` and `..` resolved lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Lines of a Markdown text outside fenced code blocks, with inline code
/// spans blanked out, numbered from 1.
fn prose_lines(text: &str) -> Vec<(usize, String)> {
    let mut fence: Option<&str> = None;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => fence = Some(m),
            (Some(open), Some(m)) if open == m => fence = None,
            (None, None) => out.push((i + 1, without_code_spans(line))),
            _ => {}
        }
    }
    out
}

/// `line` with every `` `code` `` span replaced by spaces.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut in_code = false;
    for c in line.chars() {
        if c == '`' {
            in_code = !in_code;
            out.push(' ');
        } else if in_code {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The targets of inline links `[text](target)` and of reference
/// definitions `[label]: target` on one line.
fn link_targets(line: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        let target = if let Some(stripped) = after.strip_prefix('<') {
            stripped.split('>').next().unwrap_or_default()
        } else {
            // Up to the closing parenthesis that balances the opening one.
            let mut depth = 0usize;
            let end = after
                .char_indices()
                .find(|&(_, c)| {
                    if c == '(' {
                        depth += 1;
                    } else if c == ')' {
                        if depth == 0 {
                            return true;
                        }
                        depth -= 1;
                    }
                    false
                })
                .map_or(after.len(), |(i, _)| i);
            after[..end].split_whitespace().next().unwrap_or_default()
        };
        targets.push(target.to_owned());
        rest = after;
    }
    let trimmed = line.trim_start();
    if let Some(label_end) = trimmed.strip_prefix('[').and_then(|t| t.find("]:")) {
        let target = trimmed[label_end + 3..].split_whitespace().next();
        if let Some(target) = target {
            targets.push(target.trim_matches(['<', '>']).to_owned());
        }
    }
    targets
}

/// Whether `target` points inside the repository (not a URL or e-mail).
fn is_repository_path(target: &str) -> bool {
    !(target.is_empty() || target.contains("://") || target.starts_with("mailto:"))
}

/// GitHub's anchor for a heading: lowercase, punctuation dropped (letters,
/// digits, `-`, `_` and spaces kept), spaces as `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown file's headings (duplicates get `-1`, `-2`, …).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut out = Vec::new();
    let mut fence: Option<&str> = None;
    for line in text.lines() {
        let trimmed = line.trim_start();
        let marker = ["```", "~~~"].into_iter().find(|m| trimmed.starts_with(m));
        match (fence, marker) {
            (None, Some(m)) => {
                fence = Some(m);
                continue;
            }
            (Some(open), Some(m)) if open == m => {
                fence = None;
                continue;
            }
            (Some(_), _) => continue,
            _ => {}
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if (1..=6).contains(&hashes) && line[hashes..].starts_with(' ') {
            let base = slug(&line[hashes..].replace('`', ""));
            let n = seen.entry(base.clone()).or_insert(0);
            out.push(if *n == 0 { base } else { format!("{base}-{n}") });
            *n += 1;
        }
    }
    out
}

/// What is wrong with `target` written in `from` (a Markdown file), if anything.
fn check_link(root: &Path, from: &Path, target: &str) -> Option<String> {
    let (path, anchor) = match target.split_once('#') {
        Some((path, anchor)) => (path, Some(anchor)),
        None => (target, None),
    };
    let file = if path.is_empty() {
        from.to_path_buf()
    } else if let Some(from_root) = path.strip_prefix('/') {
        root.join(from_root)
    } else {
        from.parent().unwrap_or(root).join(path)
    };
    let file = normalize(&file);
    if !file.exists() {
        return Some(format!("`{target}`: no such file"));
    }
    let anchor = anchor.filter(|a| !a.is_empty())?;
    if file.extension().is_none_or(|e| e != "md") {
        return None;
    }
    let text = fs::read_to_string(&file).unwrap_or_default();
    (!anchors(&text).iter().any(|a| a == anchor))
        .then(|| format!("`{target}`: no heading with anchor `#{anchor}`"))
}

/// Repository paths `docs/….md` and `crates/….md` in `line`.
fn doc_paths(line: &str) -> Vec<String> {
    let is_path_char = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/');
    let mut out = Vec::new();
    for (start, _) in line.char_indices() {
        let rest = &line[start..];
        if !(rest.starts_with("docs/") || rest.starts_with("crates/")) {
            continue;
        }
        let previous = line[..start].chars().next_back();
        if previous.is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')) {
            continue;
        }
        let end = rest.find(|c| !is_path_char(c)).unwrap_or(rest.len());
        let path = rest[..end].trim_end_matches('.');
        if path.ends_with(".md") {
            out.push(path.to_owned());
        }
    }
    out
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

fn broken_markdown_links(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    files_with_suffix(root, ".md", &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("README.md")),
        "no Markdown found under {}",
        root.display()
    );
    let mut broken = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (number, line) in prose_lines(&text) {
            for target in link_targets(&line) {
                if !is_repository_path(&target) {
                    continue;
                }
                if let Some(problem) = check_link(root, &file, &target) {
                    broken.push(format!("{}:{number}: {problem}", relative(root, &file)));
                }
            }
        }
    }
    broken
}

fn broken_comment_paths(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    files_with_suffix(&root.join("crates"), ".rs", &mut files);
    assert!(!files.is_empty(), "no Rust sources under crates/");
    let mut broken = Vec::new();
    for file in files {
        let text = fs::read_to_string(&file).unwrap_or_default();
        for (i, line) in text.lines().enumerate() {
            let Some(comment) = line.trim_start().strip_prefix("//") else {
                continue;
            };
            for path in doc_paths(comment) {
                if !root.join(&path).exists() {
                    broken.push(format!(
                        "{}:{}: `{path}`: no such file",
                        relative(root, &file),
                        i + 1
                    ));
                }
            }
        }
    }
    broken
}

#[test]
fn every_referenced_document_exists() {
    let root = repo_root();
    let mut broken = broken_markdown_links(&root);
    broken.extend(broken_comment_paths(&root));
    assert!(
        broken.is_empty(),
        "{} broken document reference(s):\n{}",
        broken.len(),
        broken.join("\n")
    );
}

#[test]
fn the_parsers_find_what_they_should() {
    assert_eq!(
        link_targets("see [a](docs/a.md#x-y) and [b](<b c.md>) and [c](https://x.org/(y))"),
        ["docs/a.md#x-y", "b c.md", "https://x.org/(y)"]
    );
    assert_eq!(link_targets("[label]: ../x.md \"title\""), ["../x.md"]);
    assert_eq!(
        prose_lines("a [x](y.md)\n```\n[z](w.md)\n```\n`[q](r.md)`"),
        [(1, "a [x](y.md)".to_owned()), (5, " ".repeat(11))]
    );
    assert_eq!(
        doc_paths(" (see `docs/memory.md`, *Tables*; ../../crates/x/README.md, mydocs/no.md)"),
        ["docs/memory.md", "crates/x/README.md"]
    );
    assert_eq!(
        slug("Weights, usage and archiving"),
        "weights-usage-and-archiving"
    );
    assert_eq!(slug("`agcore eval`"), "agcore-eval");
    assert_eq!(
        anchors("# A\n## Proof\n```\n# not\n```\n## Proof\n"),
        ["a", "proof", "proof-1"]
    );
    let root = repo_root();
    let readme = root.join("README.md");
    assert_eq!(check_link(&root, &readme, "docs/memory.md#prefetch"), None);
    assert!(check_link(&root, &readme, "docs/absent.md").is_some());
    assert!(check_link(&root, &readme, "docs/memory.md#absent-heading").is_some());
}
