//! `agcore memory index-files CONFIG`: builds or refreshes the index of every
//! `file` memory store declared in CONFIG ahead of time (see
//! `docs/memory-attachments.md`, *`file`*), so the first chat turn does not
//! wait for it.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agcore::attach::stores::file::{FileStore, parse_file_config};
use agcore::attach::{
    AttachConfig, ConfigLocation, IndexStats, LoadProgress, StoreContext, StoreDeclaration,
    StoreSpec,
};
use clap::Args;
use indicatif::ProgressBar;

use crate::error::CliError;
use crate::output;

/// The store type this command indexes.
const FILE_TYPE: &str = "file";

/// Arguments of `memory index-files`.
#[derive(Debug, Args)]
pub struct IndexFilesArgs {
    /// The configuration file declaring the stores (`.yaml`, `.yml` or `.toml`).
    #[arg(value_name = "CONFIG")]
    pub config: PathBuf,
    /// Only the store named NAME (repeat for several; default: every `file` store).
    #[arg(long = "store", value_name = "NAME")]
    pub stores: Vec<String>,
}

/// One store's result.
struct Indexed {
    name: String,
    index_path: String,
    stats: IndexStats,
    seconds: f64,
}

/// Indexes the `file` stores of `args.config`, with a progress bar over
/// each store's files (then its chunks being embedded), and prints per store the files new, changed, removed and unchanged and
/// the chunks indexed, dropped and held.
///
/// # Errors
/// [`CliError::Agent`] for a bad configuration (exit 2) or a source or
/// index that cannot be read or written (exit 1); [`CliError::NotFound`]
/// when CONFIG has no `file` store (or none named by `--store`).
pub async fn run(args: &IndexFilesArgs, json: bool) -> Result<(), CliError> {
    let config = AttachConfig::load(&args.config).await?;
    let ctx = agcore::attach::context_for(&config);
    agcore::attach::registry().validate(&config, ctx.vars.as_ref())?;
    let chosen = chosen_stores(&config, args)?;
    let bar = crate::progress::bar(0, "files");
    bar.enable_steady_tick(Duration::from_millis(120));
    let mut done = Vec::new();
    let count = chosen.len();
    for (n, decl) in chosen.into_iter().enumerate() {
        bar.set_message(format!("{} ({}/{count})", decl.name, n + 1));
        done.push(index_one(decl, &ctx, &bar).await?);
    }
    bar.finish_and_clear();
    if json {
        let rows: Vec<serde_json::Value> = done.iter().map(to_json).collect();
        return output::json(&rows);
    }
    for store in &done {
        output::line(&describe(store))?;
    }
    Ok(())
}

fn to_json(store: &Indexed) -> serde_json::Value {
    let s = &store.stats;
    serde_json::json!({
        "store": store.name,
        "index_path": store.index_path,
        "files_scanned": s.files_scanned,
        "files_new": s.files_new,
        "files_changed": s.files_indexed - s.files_new,
        "files_removed": s.files_removed,
        "files_unchanged": s.files_unchanged,
        "files_skipped_too_large": s.files_skipped,
        "chunks_indexed": s.chunks_indexed,
        "chunks_removed": s.chunks_removed,
        "chunks_total": s.chunks_total,
        "seconds": store.seconds,
    })
}

fn describe(store: &Indexed) -> String {
    let s = &store.stats;
    let skipped = if s.files_skipped > 0 {
        format!(", {} skipped (over max_file_bytes)", s.files_skipped)
    } else {
        String::new()
    };
    format!(
        "{}: {} files: {} new, {} changed, {} removed, {} unchanged{skipped}; chunks: {} indexed, {} dropped, {} total; index {} ({:.1} s)",
        store.name,
        s.files_scanned,
        s.files_new,
        s.files_indexed - s.files_new,
        s.files_removed,
        s.files_unchanged,
        s.chunks_indexed,
        s.chunks_removed,
        s.chunks_total,
        store.index_path,
        store.seconds
    )
}

/// The `file` stores to index: those named in `args.stores` (each must
/// exist), or all of them.
fn chosen_stores<'a>(
    config: &'a AttachConfig,
    args: &IndexFilesArgs,
) -> Result<Vec<&'a StoreDeclaration>, CliError> {
    for name in &args.stores {
        if !config
            .memory
            .stores
            .iter()
            .any(|s| &s.name == name && s.store_type == FILE_TYPE)
        {
            return Err(CliError::NotFound(format!(
                "{}: no `file` memory store named `{name}`",
                args.config.display()
            )));
        }
    }
    let chosen: Vec<_> = config
        .memory
        .stores
        .iter()
        .filter(|s| s.store_type == FILE_TYPE)
        .filter(|s| args.stores.is_empty() || args.stores.contains(&s.name))
        .collect();
    if chosen.is_empty() {
        return Err(CliError::NotFound(format!(
            "{} declares no `file` memory store under `memory.stores`",
            args.config.display()
        )));
    }
    Ok(chosen)
}

/// Opens one `file` store, which indexes its files, with `bar` following.
async fn index_one(
    decl: &StoreDeclaration,
    ctx: &StoreContext,
    bar: &ProgressBar,
) -> Result<Indexed, CliError> {
    let at = ConfigLocation::new(
        decl.location.file.as_deref(),
        format!("{}.config", decl.location.path),
    );
    let settings = parse_file_config(&decl.config, &at, ctx.vars.as_ref())?;
    let index_path = ctx
        .resolve(std::path::Path::new(&settings.index_path))
        .display()
        .to_string();
    let spec = StoreSpec {
        name: decl.name.clone(),
        location: decl.location.clone(),
    };
    let started = Instant::now();
    let store = FileStore::open(spec, settings, ctx.clone()).await?;
    let progress = bar.clone();
    let name = decl.name.clone();
    store
        .load_with_progress(Arc::new(move |step| match step {
            LoadProgress::Scanned { files } => {
                progress.reset();
                progress.set_length(u64::try_from(files).unwrap_or(u64::MAX));
            }
            LoadProgress::File { done, .. } => {
                progress.set_position(u64::try_from(done).unwrap_or(u64::MAX));
            }
            LoadProgress::Embedding { chunks } => {
                progress.set_message(format!("{name}: embedding {chunks} chunks"));
            }
            _ => {}
        }))
        .await?;
    Ok(Indexed {
        name: decl.name.clone(),
        index_path,
        stats: store.last_stats().await,
        seconds: started.elapsed().as_secs_f64(),
    })
}
