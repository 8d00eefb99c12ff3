//! Backup import: whole entries restored under new ids, all or nothing.

use chrono::{Duration, SubsecRound, Utc};

use crate::{CheckFailure, CheckResult, ensure};
use agcore_memory::MemoryError;
use agcore_memory::long_term::{
    ListRequest, LongTermMemory, MAX_ENTRY_CONTENT_BYTES, MemoryEntry, MemoryScope, MemoryType,
    NewMemory, ScopedMemory, apply,
};

/// An entry of `scope` as a backup holds it, three days old.
fn backup_entry(m: &ScopedMemory, scope: &MemoryScope, name: &str, content: &str) -> MemoryEntry {
    // Stored times have microseconds, as `LongTermMemory` makes them.
    let when = (Utc::now() - Duration::days(3)).trunc_subsecs(6);
    apply::new_entry(
        scope,
        NewMemory::new(MemoryType::Project, name, content),
        m.rules(),
        when,
    )
}

/// Import keeps every field but the id (type, title, text, description,
/// metadata, tags, weight, archive flag, use count, every timestamp); an
/// entry whose text is already in its scope — stored before or earlier in
/// the batch — is skipped with the stored entry reported; one outcome per
/// input, in order; `ScopedMemory::import_entries` puts everything in its
/// scope, `LongTermMemory::import_entries` in each entry's own scope.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_import(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    let existing = m
        .save(NewMemory::new(MemoryType::User, "tea", "Likes green tea"))
        .await?
        .entry;
    let mut a = backup_entry(
        &m,
        &MemoryScope::new("elsewhere", "x")?,
        "p",
        "Imported project note",
    );
    a.description = "from a backup".into();
    a.metadata.insert("k".into(), "v".into());
    a.tags = vec!["x".into(), "y".into()];
    a.weight = 2.5;
    a.use_count = 7;
    a.archived = true;
    a.last_used_at = Some(a.created_at + Duration::hours(1));
    a.weight_updated_at = a.created_at + Duration::hours(2);
    a.updated_at = a.created_at + Duration::hours(3);
    a.id = 424_242;
    // One scope in the batch (not this one): imported here.
    let backup = a.scope()?;
    let dup_stored = backup_entry(&m, &backup, "tea", "likes GREEN tea");
    let b = backup_entry(&m, &backup, "b", "Second imported note");
    let dup_batch = backup_entry(&m, &backup, "b2", "second  IMPORTED note");
    let outcomes = m
        .import_entries(vec![a.clone(), dup_stored, b, dup_batch])
        .await?;
    let [first, second, third, fourth] = outcomes.as_slice() else {
        return Err(CheckFailure(format!(
            "{} outcomes for 4 entries",
            outcomes.len()
        )));
    };
    ensure(first.created && first.entry.id != 424_242, || {
        "an imported entry gets a new id".into()
    })?;
    let stored = m
        .list(&super::including_archived())
        .await?
        .into_iter()
        .find(|e| e.id == first.entry.id);
    let mut want = a.clone();
    want.id = first.entry.id;
    want.agent_name = "agent".into();
    want.user_id = "u1".into();
    ensure(stored.as_ref() == Some(&want), || {
        format!("imported fields changed:\n stored {stored:?}\n want   {want:?}")
    })?;
    ensure(first.entry == want, || {
        format!("outcome entry {:?}", first.entry)
    })?;
    ensure(!second.created && second.entry.id == existing.id, || {
        "a text already stored is skipped, reporting the stored entry".into()
    })?;
    ensure(third.created, || "a new text is imported".into())?;
    ensure(!fourth.created && fourth.entry.id == third.entry.id, || {
        "a text earlier in the batch is skipped, reporting that entry".into()
    })?;
    let n = m.list(&super::including_archived()).await?.len();
    ensure(n == 3, || {
        format!("3 entries expected after import, found {n}")
    })?;

    let u2 = MemoryScope::new("agent", "u2")?;
    let u3 = MemoryScope::new("planner", "u3")?;
    let c = backup_entry(&m, &u2, "c", "Likes green tea");
    let d = backup_entry(&m, &u3, "d", "Planner note");
    check_several_scopes_refused(&m, &c, &d).await?;
    let outcomes = memory.import_entries(vec![c, d]).await?;
    ensure(
        outcomes.len() == 2 && outcomes.iter().all(|o| o.created),
        || format!("multi-scope import: {outcomes:?}"),
    )?;
    for (scope, text) in [(&u2, "Likes green tea"), (&u3, "Planner note")] {
        let h = memory.scoped(scope.clone());
        let found = h.find_by_content(text).await?;
        ensure(
            found.is_some_and(|e| e.scope().is_ok_and(|s| s == *scope)),
            || format!("{scope:?} must hold its imported entry"),
        )?;
    }
    let scopes = memory.scopes().await?;
    ensure(scopes.contains(&u2) && scopes.contains(&u3), || {
        format!("imported scopes must be listed: {scopes:?}")
    })?;
    let n = m.list(&super::including_archived()).await?.len();
    ensure(n == 3, || {
        format!("another scope's import changed this one: {n}")
    })
}

/// Entries of two scopes are refused by `ScopedMemory::import_entries`
/// (naming both, nothing written) and merged into the scope by
/// `import_entries_merged` (then removed again).
async fn check_several_scopes_refused(
    m: &ScopedMemory,
    c: &MemoryEntry,
    d: &MemoryEntry,
) -> CheckResult {
    let before = m.list(&super::including_archived()).await?.len();
    let result = m.import_entries(vec![c.clone(), d.clone()]).await;
    ensure(
        matches!(&result, Err(MemoryError::InvalidInput(msg))
            if msg.contains("2 scopes") && msg.contains("agent/u2") && msg.contains("planner/u3")),
        || format!("entries of two scopes must be refused, naming them: {result:?}"),
    )?;
    let n = m.list(&super::including_archived()).await?.len();
    ensure(n == before, || {
        format!("a refused import of two scopes wrote entries: {n}")
    })?;
    let mut d = d.clone();
    d.content = "Merged planner note".into();
    let merged = m.import_entries_merged(vec![c.clone(), d]).await?;
    ensure(merged.len() == 2, || format!("merged import: {merged:?}"))?;
    for outcome in merged.iter().filter(|o| o.created) {
        ensure(outcome.entry.scope()? == *m.scope(), || {
            format!("a merged entry must land here: {:?}", outcome.entry)
        })?;
        m.delete(outcome.entry.id).await?;
    }
    Ok(())
}

/// A batch with one invalid entry — first, middle or last; empty, NUL or
/// oversized text, a non-finite weight, an invalid scope — is refused with
/// `InvalidInput` and writes nothing, in one scope or across scopes; the
/// valid entries import afterwards.
///
/// # Errors
/// [`CheckFailure`] describing the first broken expectation.
pub async fn check_import_all_or_nothing(memory: LongTermMemory) -> CheckResult {
    let m = memory.scope("agent", "u1")?;
    m.save(NewMemory::new(MemoryType::User, "tea", "Likes green tea"))
        .await?;
    let good = |n: usize| backup_entry(&m, m.scope(), "ok", &format!("Valid backup note {n}"));
    let mut bad_entries = Vec::new();
    let mut nan = good(90);
    nan.weight = f64::NAN;
    bad_entries.push(("NaN weight", nan));
    let mut empty = good(91);
    empty.content = "  ".into();
    bad_entries.push(("blank content", empty));
    let mut nul = good(92);
    nul.content = "bad \0 text".into();
    bad_entries.push(("NUL in content", nul));
    let mut big = good(93);
    big.content = "x".repeat(MAX_ENTRY_CONTENT_BYTES + 1);
    bad_entries.push(("oversized content", big));
    for (what, bad) in bad_entries {
        for position in 0..3 {
            let mut batch = vec![good(1), good(2)];
            batch.insert(position, bad.clone());
            let result = m.import_entries(batch).await;
            ensure(matches!(result, Err(MemoryError::InvalidInput(_))), || {
                format!("{what} at position {position}: expected InvalidInput, got {result:?}")
            })?;
            let n = m.list(&super::including_archived()).await?.len();
            ensure(n == 1, || {
                format!("a refused import ({what} at {position}) wrote entries: {n}")
            })?;
        }
    }
    let other = MemoryScope::new("agent", "u2")?;
    let mut bad_scope = backup_entry(&m, &other, "b", "Bad scope note");
    bad_scope.user_id = String::new();
    let batch = vec![
        backup_entry(&m, &other, "a", "Other scope note"),
        good(3),
        bad_scope,
    ];
    let result = memory.import_entries(batch).await;
    ensure(matches!(result, Err(MemoryError::InvalidInput(_))), || {
        format!("an invalid scope must fail the import: {result:?}")
    })?;
    let scopes = memory.scopes().await?;
    ensure(scopes == [m.scope().clone()], || {
        format!("a refused multi-scope import wrote scopes: {scopes:?}")
    })?;
    let n = m.list(&ListRequest::all()).await?.len();
    ensure(n == 1, || {
        format!("a refused multi-scope import wrote here: {n}")
    })?;
    let done = m.import_entries(vec![good(1), good(2)]).await?;
    ensure(done.iter().all(|o| o.created) && done.len() == 2, || {
        format!("the valid entries must import afterwards: {done:?}")
    })
}
