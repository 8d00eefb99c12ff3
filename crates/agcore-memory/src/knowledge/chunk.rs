//! Cutting notes into wiki pages: Markdown at its headings, one page per
//! section, with stable ids, heading-path titles, anchors and the relative
//! links between notes (for [`KnowledgePage::references`](super::KnowledgePage)).
//!
//! Pure text processing (no I/O): callers read the files and store the pages.
//!
//! ```
//! use agcore_memory::knowledge::chunk::sections;
//! let found = sections("guide/setup.md", "Intro.\n# Install\nRun it.\n## Linux\nUse apt.\n");
//! assert_eq!(found[2].title, "guide/setup.md › Install › Linux");
//! assert_eq!(found[2].id, "guide-setup-md--install-linux");
//! ```

use std::path::{Component, Path};

/// Longest page-id part made from a file path or a heading path, in bytes.
const MAX_SLUG_BYTES: usize = 90;

/// One section of a file: the text under one heading, up to the next heading.
///
/// Its `id` is a valid page id ([`validate_page_id`](super::validate_page_id)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Section {
    /// Stable page id: `<file slug>--<heading-path slug>` (`top` before the first heading).
    pub id: String,
    /// `file › Heading › Subheading`.
    pub title: String,
    /// The last heading's slug (`top` for the preamble), for `#anchor` links.
    pub anchor: String,
    /// The section's text, heading line included.
    pub text: String,
    /// Relative link targets found in the text (`path.md#anchor`, as written).
    pub links: Vec<String>,
}

/// Lowercase slug: letters and digits of any script kept, every other run of
/// characters one `-`; never contains `--`; cut to a byte budget.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars().flat_map(char::to_lowercase) {
        if c.is_alphanumeric() {
            if out.len() + c.len_utf8() > MAX_SLUG_BYTES {
                break;
            }
            out.push(c);
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let trimmed = out.trim_end_matches('-');
    if trimmed.is_empty() {
        "x".to_owned()
    } else {
        trimmed.to_owned()
    }
}

/// The page-id prefix of every section of the file `rel` (`<file slug>--`).
pub fn file_prefix(rel: &str) -> String {
    format!("{}--", slug(rel))
}

/// A heading line: its level (1–6) and text, outside code fences.
fn heading(line: &str) -> Option<(usize, &str)> {
    let hashes = line.chars().take_while(|c| *c == '#').count();
    let rest = line.get(hashes..)?;
    if (1..=6).contains(&hashes) && (rest.is_empty() || rest.starts_with(' ')) {
        Some((hashes, rest.trim().trim_end_matches('#').trim()))
    } else {
        None
    }
}

/// Relative link targets of Markdown inline links `[text](target)` in `text`:
/// no scheme (`http:`, `mailto:`), no pure `#anchor`, no absolute path.
pub fn relative_links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("](") {
        let after = rest.get(at + 2..).unwrap_or("");
        let Some(end) = after.find(')') else { break };
        let target = after.get(..end).unwrap_or("").trim();
        let target = target.split_whitespace().next().unwrap_or("");
        let target = target.trim_start_matches('<').trim_end_matches('>');
        if !target.is_empty()
            && !target.contains(':')
            && !target.starts_with('#')
            && !target.starts_with('/')
            && !out.iter().any(|t| t == target)
        {
            out.push(target.to_owned());
        }
        rest = after.get(end..).unwrap_or("");
    }
    out
}

/// Cuts the file `rel` into sections: Markdown at its headings (`#`–`######`
/// outside code fences, titles as heading paths), other text as one section.
pub fn sections(rel: &str, text: &str) -> Vec<Section> {
    let markdown = !Path::new(rel)
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("txt"));
    let prefix = file_prefix(rel);
    let mut out: Vec<Section> = Vec::new();
    let mut path: Vec<(usize, String)> = Vec::new();
    let mut body = String::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") || line.trim_start().starts_with("~~~") {
            in_fence = !in_fence;
        }
        let found = if markdown && !in_fence {
            heading(line)
        } else {
            None
        };
        if let Some((level, title)) = found {
            push(&mut out, &prefix, rel, &path, &mut body);
            path.retain(|(l, _)| *l < level);
            path.push((level, title.to_owned()));
        }
        body.push_str(line);
        body.push('\n');
    }
    push(&mut out, &prefix, rel, &path, &mut body);
    out
}

fn push(
    out: &mut Vec<Section>,
    prefix: &str,
    rel: &str,
    path: &[(usize, String)],
    body: &mut String,
) {
    let text = std::mem::take(body);
    if text.trim().is_empty() {
        return;
    }
    let titles: Vec<&str> = path.iter().map(|(_, t)| t.as_str()).collect();
    let anchor = titles.last().map_or_else(|| "top".to_owned(), |t| slug(t));
    let base = if titles.is_empty() {
        format!("{prefix}top")
    } else {
        format!("{prefix}{}", slug(&titles.join(" ")))
    };
    let mut id = base.clone();
    let mut n = 2;
    while out.iter().any(|s| s.id == id) {
        id = format!("{base}-{n}");
        n += 1;
    }
    let title = std::iter::once(rel)
        .chain(titles.iter().copied())
        .collect::<Vec<_>>()
        .join(" › ");
    out.push(Section {
        id,
        title,
        anchor,
        links: relative_links(&text),
        text,
    });
}

/// The first line of prose of `text` (no heading), cut to 120 characters.
pub fn summary(text: &str) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && heading(l).is_none() && !l.starts_with("```"))
        .unwrap_or("");
    let mut out: String = line.chars().take(120).collect();
    if line.chars().count() > 120 {
        out.push('…');
    }
    out
}

/// `target` (a link written in the file `from_rel`) as a path relative to the
/// ingested folder, `/`-separated, and its `#anchor` if any. `None` when it
/// leaves the folder.
pub fn resolve_link(from_rel: &str, target: &str) -> Option<(String, Option<String>)> {
    let (file, anchor) = match target.split_once('#') {
        Some((f, a)) => (f, Some(a.to_owned())),
        None => (target, None),
    };
    let base = Path::new(from_rel)
        .parent()
        .unwrap_or_else(|| Path::new(""));
    let mut parts: Vec<String> = Vec::new();
    for comp in base.join(file).components() {
        match comp {
            Component::Normal(p) => parts.push(p.to_string_lossy().into_owned()),
            Component::ParentDir => {
                parts.pop()?;
            }
            _ => {}
        }
    }
    Some((parts.join("/"), anchor))
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "Intro line.\n\n# Install\nRun it.\n\n## Linux\nUse apt. See [faq](faq.md#proxy).\n\n```\n# not a heading\n```\n\n# Usage\nType [here](#x) or [web](https://a.b).\n";

    #[test]
    fn markdown_is_cut_at_headings_with_heading_paths() {
        let s = sections("guide/setup.md", DOC);
        let titles: Vec<&str> = s.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(
            titles,
            [
                "guide/setup.md",
                "guide/setup.md › Install",
                "guide/setup.md › Install › Linux",
                "guide/setup.md › Usage"
            ]
        );
        assert_eq!(s[2].id, "guide-setup-md--install-linux");
        assert_eq!(s[2].anchor, "linux");
        assert!(s[2].text.contains("# not a heading"));
        assert_eq!(s[2].links, vec!["faq.md#proxy".to_owned()]);
        assert!(s[3].links.is_empty());
        assert_eq!(s[0].id, "guide-setup-md--top");
        assert_eq!(summary(&s[1].text), "Run it.");
    }

    #[test]
    fn ids_are_unique_and_text_files_are_one_section() {
        let s = sections("a.md", "# Same\none\n# Same\ntwo\n");
        assert_eq!(s[1].id, "a-md--same-2");
        let t = sections("notes.txt", "# not a heading in text\nbody\n");
        assert_eq!(t.len(), 1);
        assert_eq!(slug("部署 指南!"), "部署-指南");
        assert!(!slug("a -- b").contains("--"));
    }

    proptest::proptest! {
        #[test]
        fn sections_keep_all_text_and_make_valid_unique_ids(
            text in "(#{0,7} ?[a-zA-Z中文 ]{0,12}\n|```\n|[^\n]{0,20}\n){0,30}",
            rel in "[a-z/ .]{1,20}(md|txt)",
        ) {
            let found = sections(&rel, &text);
            let joined: String = found.iter().map(|s| s.text.as_str()).collect();
            let visible = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
            proptest::prop_assert_eq!(visible(&joined), visible(&text));
            let mut ids: Vec<&str> = found.iter().map(|s| s.id.as_str()).collect();
            for id in &ids {
                proptest::prop_assert!(crate::knowledge::validate_page_id(id).is_ok(), "{}", id);
            }
            ids.sort_unstable();
            ids.dedup();
            proptest::prop_assert_eq!(ids.len(), found.len());
        }

        #[test]
        fn slugs_are_short_and_never_hold_the_separator(text in "\\PC{0,200}") {
            let s = slug(&text);
            proptest::prop_assert!(!s.is_empty() && s.len() <= MAX_SLUG_BYTES && !s.contains("--"));
        }
    }

    #[test]
    fn links_resolve_inside_the_folder() {
        assert_eq!(
            resolve_link("guide/setup.md", "../faq.md#proxy"),
            Some(("faq.md".to_owned(), Some("proxy".to_owned())))
        );
        assert_eq!(resolve_link("a.md", "../../x.md"), None);
    }
}
