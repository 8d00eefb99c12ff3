//! `memory clean`: archive or delete memories by rule, with `--dry-run`.

use agcore::memory::long_term::{
    ArchivedFilter, ListOrder, ListRequest, MemoryEntry, MemoryType, MemoryUpdate,
};
use chrono::{DateTime, Utc};
use clap::{ArgGroup, Args};
use serde::Serialize;

use super::{parse_type, scope_label, view::entries_table};
use crate::error::CliError;
use crate::output;
use crate::scope::OpenedMemory;

/// Arguments of `memory clean`. Rules combine: a memory must pass every rule given.
#[derive(Debug, Args)]
#[command(group(
    ArgGroup::new("rule")
        .required(true)
        .multiple(true)
        .args(["below_weight", "older_than", "memory_type"])
))]
pub struct CleanArgs {
    /// Memories whose weight is below W.
    #[arg(long, value_name = "W")]
    below_weight: Option<f64>,
    /// Memories neither updated nor used in the last DAYS days.
    #[arg(long, value_name = "DAYS")]
    older_than: Option<f64>,
    /// Memories of this type: user, project, feedback or reference.
    #[arg(long = "type", value_name = "TYPE")]
    memory_type: Option<String>,
    /// Delete instead of archiving (archived memories are then included).
    #[arg(long)]
    delete: bool,
    /// Show what would change; change nothing.
    #[arg(long)]
    dry_run: bool,
}

/// The rules, checked.
#[derive(Debug, Clone, Copy)]
struct Rules {
    below_weight: Option<f64>,
    cutoff: Option<DateTime<Utc>>,
    memory_type: Option<MemoryType>,
}

impl Rules {
    fn from_args(args: &CleanArgs, now: DateTime<Utc>) -> Result<Self, CliError> {
        if let Some(w) = args.below_weight.filter(|w| !w.is_finite()) {
            return Err(CliError::Invalid(format!(
                "--below-weight must be a number, got {w}"
            )));
        }
        let cutoff = match args.older_than {
            None => None,
            Some(days) if days.is_finite() && days >= 0.0 => {
                let micros = (days * 86_400e6).min(1e17) as i64;
                Some(now - chrono::Duration::microseconds(micros))
            }
            Some(days) => {
                return Err(CliError::Invalid(format!(
                    "--older-than must be a number of days ≥ 0, got {days}"
                )));
            }
        };
        let memory_type = args.memory_type.as_deref().map(parse_type).transpose()?;
        Ok(Self {
            below_weight: args.below_weight,
            cutoff,
            memory_type,
        })
    }

    fn matches(&self, e: &MemoryEntry) -> bool {
        let last_activity = e.last_used_at.map_or(e.updated_at, |u| u.max(e.updated_at));
        self.below_weight.is_none_or(|w| e.weight < w)
            && self.cutoff.is_none_or(|c| last_activity < c)
            && self.memory_type.is_none_or(|t| e.memory_type == t)
    }
}

#[derive(Serialize)]
struct CleanReport<'a> {
    action: &'static str,
    dry_run: bool,
    count: usize,
    entries: &'a [MemoryEntry],
}

/// Runs `memory clean`.
///
/// # Errors
/// [`CliError::Invalid`] for bad rule values; storage errors (memories
/// changed before the failure stay changed).
pub async fn clean(opened: &OpenedMemory, args: &CleanArgs, json: bool) -> Result<(), CliError> {
    let rules = Rules::from_args(args, Utc::now())?;
    let mut request = ListRequest::all().order(ListOrder::Created);
    request.archived = if args.delete {
        ArchivedFilter::Include
    } else {
        ArchivedFilter::Exclude
    };
    let mut matched: Vec<MemoryEntry> = opened
        .scoped
        .list(&request)
        .await?
        .into_iter()
        .filter(|e| rules.matches(e))
        .collect();
    if !args.dry_run {
        for e in &mut matched {
            if args.delete {
                opened.scoped.delete(e.id).await?;
            } else {
                *e = opened
                    .scoped
                    .update(e.id, MemoryUpdate::new().archived(true))
                    .await?;
            }
        }
    }
    let action = if args.delete { "delete" } else { "archive" };
    if json {
        return output::json(&CleanReport {
            action,
            dry_run: args.dry_run,
            count: matched.len(),
            entries: &matched,
        });
    }
    let done = match (args.dry_run, args.delete) {
        (true, _) => format!("would {action}"),
        (false, true) => "deleted".to_owned(),
        (false, false) => "archived".to_owned(),
    };
    let mut text = format!(
        "{done} {} memor{} of {}",
        matched.len(),
        if matched.len() == 1 { "y" } else { "ies" },
        scope_label(opened)
    );
    if args.dry_run {
        text.push_str(" (dry run: nothing changed)");
    }
    text.push('\n');
    if !matched.is_empty() {
        text.push_str(&entries_table(&matched).render());
    }
    output::emit(&text)
}
