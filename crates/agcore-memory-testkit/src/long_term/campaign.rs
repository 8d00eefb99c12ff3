//! An adversarial scope-isolation campaign: scopes named by hostile ids
//! (case, Unicode normalisation, full-width and zero-width look-alikes,
//! separators, SQL and full-text syntax, bidi controls, over-long and
//! control-character ids), each holding secrets, then thousands of
//! generated attempts by one scope to read, find, change or delete another's
//! entries through every call of `ScopedMemory`. Ids
//! [`MemoryScope::new`](agcore_memory::long_term::MemoryScope::new) refuses (blank,
//! padded, control or format characters, a reserved separator in the agent
//! name) count as refused; ids it accepts are distinct scopes unless the API
//! itself maps them to the same [`MemoryScope`](agcore_memory::long_term::MemoryScope).

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};

use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::long_term::{
    ArchivedFilter, ListRequest, LongTermMemory, MemoryType, MemoryUpdate, NewMemory, ScopedMemory,
    SearchRequest,
};

/// Attempts [`check_isolation_campaign`] makes.
pub const ISOLATION_ATTEMPTS: usize = 10_000;

/// Agent names of the campaign, valid and not.
const AGENTS: &[&str] = &[
    "assistant",
    "Assistant",
    "assistant:alice",
    "planner",
    "assistant\u{0}",
];

/// User ids of the campaign, valid and not.
const USERS: &[&str] = &[
    "alice",
    "Alice",
    "ALICE",
    "alice ",
    " alice",
    "ａｌｉｃｅ",
    "alice\u{200b}",
    "al\u{200d}ice",
    "e\u{301}mile",
    "\u{e9}mile",
    "bob",
    "a:b",
    "a/b",
    "a|b",
    "a%",
    "%",
    "_",
    "*",
    "'; DROP TABLE entries; --",
    "\" OR 1=1 --",
    "李雷",
    "李雷 ",
    "\u{202e}ecila",
    "",
    "   ",
    "a\u{1f}b",
    "tab\there",
];

/// What a campaign did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IsolationReport {
    /// Distinct scopes the API accepted.
    pub scopes: usize,
    /// (agent, user) pairs the API refused with an error.
    pub refused: usize,
    /// Attempts made by one scope on another's entries.
    pub attempts: usize,
}

struct Victim {
    scope: ScopedMemory,
    secrets: Vec<(i64, String)>,
}

/// The campaign with [`ISOLATION_ATTEMPTS`] attempts and a fixed seed.
///
/// # Errors
/// [`CheckFailure`] naming the first leak or unexpected change.
pub async fn check_isolation_campaign(memory: LongTermMemory) -> CheckResult {
    isolation_campaign(&memory, ISOLATION_ATTEMPTS, 0x5c09e)
        .await
        .map(|_| ())
}

/// Runs `attempts` generated attempts (seeded by `seed`) on `memory`, which
/// should be empty, and returns what was done.
///
/// # Errors
/// [`CheckFailure`] naming the first leak: an attempt that returned,
/// changed or deleted another scope's entry, or a secret that changed.
pub async fn isolation_campaign(
    memory: &LongTermMemory,
    attempts: usize,
    seed: u64,
) -> Result<IsolationReport, CheckFailure> {
    let mut report = IsolationReport::default();
    let mut scopes: Vec<Victim> = Vec::new();
    for agent in AGENTS {
        for user in USERS {
            let Ok(scope) = memory.scope(*agent, *user) else {
                report.refused += 1;
                continue;
            };
            if scopes.iter().any(|v| v.scope.scope() == scope.scope()) {
                continue;
            }
            let n = scopes.len();
            let mut secrets = Vec::new();
            for k in 0..2 {
                let text = format!("secret {k} of scope {n}: vault code zq{n:03}x{k} 密码{n}");
                let saved = scope
                    .save(NewMemory::new(
                        MemoryType::User,
                        format!("vault {n}"),
                        text.clone(),
                    ))
                    .await?;
                secrets.push((saved.entry.id, text));
            }
            scopes.push(Victim { scope, secrets });
        }
    }
    report.scopes = scopes.len();
    ensure(scopes.len() >= 2, || {
        "fewer than two scopes were accepted".into()
    })?;
    let mut rng = StdRng::seed_from_u64(seed);
    for attempt in 0..attempts {
        let a = rng.random_range(0..scopes.len());
        let mut b = rng.random_range(0..scopes.len() - 1);
        if b >= a {
            b += 1;
        }
        let (Some(attacker), Some(victim)) = (scopes.get(a), scopes.get(b)) else {
            continue;
        };
        let Some((id, text)) = victim
            .secrets
            .get(rng.random_range(0..victim.secrets.len()))
            .cloned()
        else {
            continue;
        };
        let op = rng.random_range(0..10_u32);
        attack(&attacker.scope, &attacker.secrets, id, &text, op)
            .await
            .map_err(|why| {
                CheckFailure(format!(
                    "attempt {attempt} (operation {op}) of scope {:?} on {:?}: {}",
                    attacker.scope.scope(),
                    victim.scope.scope(),
                    why.0
                ))
            })?;
        report.attempts += 1;
    }
    for (n, victim) in scopes.iter().enumerate() {
        let mut held = Vec::new();
        for (id, text) in &victim.secrets {
            let entry = victim.scope.get(*id).await?;
            ensure(
                entry
                    .as_ref()
                    .is_some_and(|e| &e.content == text && e.use_count == 0),
                || format!("scope {n}'s secret {id} changed: {entry:?}"),
            )?;
            held.push(text.clone());
        }
        let listed = victim.scope.list(&all()).await?;
        ensure(listed.len() == held.len(), || {
            format!(
                "scope {n} holds {} entries, not its {}",
                listed.len(),
                held.len()
            )
        })?;
    }
    Ok(report)
}

fn all() -> ListRequest {
    let mut request = ListRequest::all();
    request.archived = ArchivedFilter::Include;
    request
}

/// One attempt by `scope` (whose own secrets are `own`) on another scope's
/// entry `id` holding `text`.
async fn attack(
    scope: &ScopedMemory,
    own: &[(i64, String)],
    id: i64,
    text: &str,
    op: u32,
) -> CheckResult {
    let foreign = |content: &str| !own.iter().any(|(_, t)| t == content);
    match op {
        0 => ensure(scope.get(id).await?.is_none(), || "read it by id".into()),
        1 => {
            let hits = scope
                .search_with(
                    text,
                    &SearchRequest::top_k(50).archived(ArchivedFilter::Include),
                )
                .await?;
            ensure(!hits.iter().any(|h| foreign(&h.entry.content)), || {
                "found it by search".into()
            })
        }
        2 => ensure(scope.find_by_content(text).await?.is_none(), || {
            "found it by content".into()
        }),
        3 => {
            let result = scope
                .update(id, MemoryUpdate::new().content("overwritten"))
                .await;
            ensure(result.is_err(), || format!("updated it: {result:?}"))
        }
        4 => ensure(!scope.delete(id).await?, || "deleted it".into()),
        5 => {
            let seen = scope.history(id).await?.len() + scope.usage_log(id).await?.len();
            ensure(seen == 0, || "read its history or usage log".into())
        }
        6 => {
            let used = scope.record_use("campaign", text, &[id], true).await?;
            ensure(used == 0, || format!("recorded a use of it ({used})"))
        }
        7 => {
            let listed = scope.list(&all()).await?;
            ensure(!listed.iter().any(|e| foreign(&e.content)), || {
                "listed it".into()
            })
        }
        8 => {
            let result = scope.supersede(id, "superseded by another scope").await;
            ensure(result.is_err(), || format!("superseded it: {result:?}"))
        }
        _ => {
            // Saving the same text in one's own scope creates a separate
            // entry: a merge would reveal that the other scope holds it.
            let saved = scope
                .save(NewMemory::new(MemoryType::User, "probe", text))
                .await?;
            ensure(saved.created && saved.entry.id != id, || {
                "its text merged across scopes".into()
            })?;
            ensure(scope.delete(saved.entry.id).await?, || {
                "the probe could not be removed".into()
            })
        }
    }
}
