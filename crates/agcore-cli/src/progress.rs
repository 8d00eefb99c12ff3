//! Progress bars on stderr (indicatif), hidden when stderr is not a terminal.

use std::io::IsTerminal;

use agcore::memory::hybrid::EmbedProgress;
use indicatif::{ProgressBar, ProgressStyle};

/// A bar of `len` steps labelled `what`; hidden when stderr is not a terminal
/// (pipes, tests, CI).
pub fn bar(len: u64, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} ({eta})")
        .map(|s| s.progress_chars("=> "))
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
}

/// A bar for embedding `what` in bulk: texts done of the total, texts per
/// second and the time left; its length is set by the first report of
/// [`embed_reporter`]. Hidden when stderr is not a terminal.
pub fn rate_bar(what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(0);
    let style =
        ProgressStyle::with_template("{msg:>10} [{bar:40}] {pos}/{len} {per_sec} ({eta} left)")
            .map(|s| s.progress_chars("=> "))
            .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    bar.set_message(what.to_owned());
    bar
}

/// The progress callback of a bulk embedding
/// ([`DenseIndex::embed_all`](agcore::memory::hybrid::DenseIndex::embed_all)),
/// moving `bar`.
pub fn embed_reporter(bar: &ProgressBar) -> impl Fn(EmbedProgress) + Send + Sync {
    let bar = bar.clone();
    move |p: EmbedProgress| {
        bar.set_length(u64::try_from(p.total).unwrap_or(u64::MAX));
        bar.set_position(u64::try_from(p.done).unwrap_or(u64::MAX));
    }
}
