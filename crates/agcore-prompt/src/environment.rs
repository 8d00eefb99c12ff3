use std::path::PathBuf;

use chrono::NaiveDate;

/// Facts about the runtime environment for the environment layer of a
/// system prompt: working directory, platform, today's date, and any extra
/// `key: value` lines.
///
/// Rendered (by [`EnvironmentContext::render`]) as
///
/// ```text
/// Here is some useful information about the environment you are running in:
/// <env>
/// Working directory: /home/ada/project
/// Platform: linux (x86_64)
/// Today's date: 2026-11-22 (Sunday)
/// </env>
/// ```
///
/// following the environment block OpenCode puts in its system prompt
/// (`packages/opencode/src/session/system.ts`). Without a fixed date the date
/// is read from the local clock on every render, so a long-lived composer
/// never sends a stale date.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EnvironmentContext {
    /// The working directory; the line is left out when `None`.
    pub working_directory: Option<PathBuf>,
    /// The platform text; `None` means the running OS and architecture
    /// (`std::env::consts::OS` and `ARCH`, e.g. `linux (x86_64)`).
    pub platform: Option<String>,
    /// A fixed date; `None` means today in local time at render time.
    pub date: Option<NaiveDate>,
    /// Extra `key: value` lines, in order, after the standard ones.
    pub entries: Vec<(String, String)>,
}

impl Default for EnvironmentContext {
    fn default() -> Self {
        Self::new()
    }
}

impl EnvironmentContext {
    /// Detected platform, today's date, no working directory.
    pub fn new() -> Self {
        Self {
            working_directory: None,
            platform: None,
            date: None,
            entries: Vec::new(),
        }
    }

    /// Sets the working directory line.
    pub fn with_working_directory(mut self, dir: impl Into<PathBuf>) -> Self {
        self.working_directory = Some(dir.into());
        self
    }

    /// Overrides the detected platform.
    pub fn with_platform(mut self, platform: impl Into<String>) -> Self {
        self.platform = Some(platform.into());
        self
    }

    /// Fixes the date instead of reading the clock (reproducible prompts, tests).
    pub fn with_date(mut self, date: NaiveDate) -> Self {
        self.date = Some(date);
        self
    }

    /// Adds a `key: value` line.
    pub fn with_entry(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.entries.push((key.into(), value.into()));
        self
    }

    /// The platform text this context renders.
    pub fn platform_text(&self) -> String {
        self.platform
            .clone()
            .unwrap_or_else(|| format!("{} ({})", std::env::consts::OS, std::env::consts::ARCH))
    }

    /// The date this context renders: the fixed date, or today (local time).
    pub fn effective_date(&self) -> NaiveDate {
        self.date
            .unwrap_or_else(|| chrono::Local::now().date_naive())
    }

    /// The environment block, read fresh (clock included) on every call.
    pub fn render(&self) -> String {
        let mut out = String::from(
            "Here is some useful information about the environment you are running in:\n<env>\n",
        );
        if let Some(dir) = &self.working_directory {
            out.push_str(&format!("Working directory: {}\n", dir.display()));
        }
        out.push_str(&format!("Platform: {}\n", self.platform_text()));
        let date = self.effective_date();
        out.push_str(&format!(
            "Today's date: {} ({})\n",
            date.format("%Y-%m-%d"),
            date.format("%A")
        ));
        for (key, value) in &self.entries {
            out.push_str(&format!("{key}: {value}\n"));
        }
        out.push_str("</env>");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_all_lines_in_order() {
        let env = EnvironmentContext::new()
            .with_working_directory("/srv/项目")
            .with_platform("linux (x86_64)")
            .with_date(NaiveDate::from_ymd_opt(2026, 11, 22).unwrap())
            .with_entry("Git repository", "yes");
        assert_eq!(
            env.render(),
            "Here is some useful information about the environment you are running in:\n<env>\n\
             Working directory: /srv/项目\nPlatform: linux (x86_64)\n\
             Today's date: 2026-11-22 (Sunday)\nGit repository: yes\n</env>"
        );
    }

    #[test]
    fn defaults_detect_platform_and_skip_directory() {
        let text = EnvironmentContext::new().render();
        assert!(!text.contains("Working directory"));
        assert!(text.contains(std::env::consts::OS));
    }
}
