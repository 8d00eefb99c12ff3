//! `memory stats`: the backend (kind, version, location), counts per scope and
//! type, archived memories, and for a SQLite file its size on disk.

use std::collections::BTreeMap;
use std::path::Path;

use agcore::memory::long_term::{ArchivedFilter, ListRequest, MemoryScope, MemoryType};
use clap::Args;
use serde::Serialize;

use crate::error::CliError;
use crate::output::{self, Table, human_bytes};
use crate::scope::OpenedMemory;

/// Arguments of `memory stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    /// Every scope of the database, not only --agent/--user (the default
    /// without --user).
    #[arg(long)]
    all_scopes: bool,
}

/// Counts of one type in one scope.
#[derive(Debug, Default, Clone, Copy, Serialize)]
struct Counts {
    active: usize,
    archived: usize,
}

#[derive(Debug, Serialize)]
struct ScopeStats {
    agent: String,
    user: String,
    active: usize,
    archived: usize,
    by_type: BTreeMap<&'static str, Counts>,
}

#[derive(Debug, Serialize)]
struct Backend {
    kind: &'static str,
    version: String,
    location: String,
}

#[derive(Debug, Serialize)]
struct DatabaseSize {
    path: String,
    main_bytes: u64,
    wal_bytes: u64,
    shm_bytes: u64,
    total_bytes: u64,
}

#[derive(Debug, Serialize)]
struct Stats {
    backend: Backend,
    #[serde(skip_serializing_if = "Option::is_none")]
    database: Option<DatabaseSize>,
    scopes: Vec<ScopeStats>,
    total_active: usize,
    total_archived: usize,
    /// Scopes of the database not counted (with --user and without
    /// --all-scopes).
    other_scopes: usize,
}

fn file_size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

fn sibling(path: &Path, suffix: &str) -> std::path::PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    name.into()
}

fn database_size(path: &Path) -> DatabaseSize {
    let main_bytes = file_size(path);
    let wal_bytes = file_size(&sibling(path, "-wal"));
    let shm_bytes = file_size(&sibling(path, "-shm"));
    DatabaseSize {
        path: path.display().to_string(),
        main_bytes,
        wal_bytes,
        shm_bytes,
        total_bytes: main_bytes + wal_bytes + shm_bytes,
    }
}

async fn scope_stats(opened: &OpenedMemory, scope: &MemoryScope) -> Result<ScopeStats, CliError> {
    let scoped = opened.memory.scoped(scope.clone());
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    let mut by_type: BTreeMap<&'static str, Counts> = MemoryType::ALL
        .iter()
        .map(|t| (t.as_str(), Counts::default()))
        .collect();
    let (mut active, mut archived) = (0, 0);
    for entry in scoped.list(&request).await? {
        let counts = by_type.entry(entry.memory_type.as_str()).or_default();
        if entry.archived {
            counts.archived += 1;
            archived += 1;
        } else {
            counts.active += 1;
            active += 1;
        }
    }
    Ok(ScopeStats {
        agent: scope.agent().to_owned(),
        user: scope.user().to_owned(),
        active,
        archived,
        by_type,
    })
}

/// Runs `memory stats`: every scope with `--all-scopes` or without
/// `--user` (`user_given`), else the command's scope and how many others
/// the database holds.
///
/// # Errors
/// Storage errors.
pub async fn stats(
    opened: &OpenedMemory,
    args: &StatsArgs,
    json: bool,
    user_given: bool,
) -> Result<(), CliError> {
    let every = opened.memory.scopes().await?;
    let own = opened.scoped.scope();
    let (scopes, other_scopes) = if args.all_scopes || !user_given {
        (every, 0)
    } else {
        let others = every.iter().filter(|s| *s != own).count();
        (vec![own.clone()], others)
    };
    let mut per_scope = Vec::with_capacity(scopes.len());
    for scope in &scopes {
        per_scope.push(scope_stats(opened, scope).await?);
    }
    let stats = Stats {
        total_active: per_scope.iter().map(|s| s.active).sum(),
        total_archived: per_scope.iter().map(|s| s.archived).sum(),
        backend: Backend {
            kind: opened.info().kind,
            version: opened.info().version.clone(),
            location: opened.info().location.clone(),
        },
        database: crate::storage::sqlite_file(&opened.info().location)
            .map(|path| database_size(&path)),
        scopes: per_scope,
        other_scopes,
    };
    if json {
        return output::json(&stats);
    }
    output::emit(&render(&stats, own))
}

/// The text form of `stats`: backend, database files, a table by scope and
/// type, totals; `own` names the scope counted when others were left out.
fn render(stats: &Stats, own: &MemoryScope) -> String {
    let mut table = Table::new(["AGENT", "USER", "TYPE", "ACTIVE", "ARCHIVED"]);
    for s in &stats.scopes {
        if s.active + s.archived == 0 {
            table.row([s.agent.as_str(), s.user.as_str(), "-", "0", "0"]);
        }
        for (t, c) in s.by_type.iter().filter(|(_, c)| c.active + c.archived > 0) {
            table.row([
                s.agent.clone(),
                s.user.clone(),
                (*t).to_owned(),
                c.active.to_string(),
                c.archived.to_string(),
            ]);
        }
    }
    let backend = &stats.backend;
    let mut text = format!(
        "backend {} ({}) at {}\n",
        backend.kind, backend.version, backend.location
    );
    if let Some(db) = &stats.database {
        text.push_str(&format!(
            "database {}: {} (main {}, wal {}, shm {})\n",
            db.path,
            human_bytes(db.total_bytes),
            human_bytes(db.main_bytes),
            human_bytes(db.wal_bytes),
            human_bytes(db.shm_bytes)
        ));
    }
    text.push_str(&table.render());
    text.push_str(&format!(
        "total: {} active, {} archived in {} scope{}\n",
        stats.total_active,
        stats.total_archived,
        stats.scopes.len(),
        if stats.scopes.len() == 1 { "" } else { "s" }
    ));
    if stats.other_scopes > 0 {
        text.push_str(&format!(
            "counted {} only; {} other scope{} in the database (--all-scopes shows every scope)\n",
            own,
            stats.other_scopes,
            if stats.other_scopes == 1 { "" } else { "s" }
        ));
    }
    text
}
