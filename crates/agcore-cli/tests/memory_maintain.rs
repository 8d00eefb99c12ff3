//! `agcore memory maintain` end to end: a dry run writes nothing, a run
//! archives light entries and supersedes near duplicates (archived, never
//! deleted), prints the counts as text or JSON.
#![cfg(test)]

use crate::cli_support;

use cli_support::seeded;
use serde_json::Value;

#[test]
fn maintain_archives_and_supersedes_near_duplicates() {
    let home = seeded();
    // A near duplicate of the first entry (case, punctuation, plural), lighter.
    home.memory_ok(&[
        "add",
        "alice prefers GREEN teas, in the afternoon!",
        "--type",
        "user",
        "--weight",
        "0.5",
    ]);
    let dry: Value =
        serde_json::from_str(&home.memory_ok(&["maintain", "--dry-run", "--json"])).unwrap();
    assert_eq!(dry["dry_run"], true);
    assert_eq!(
        (&dry["archived"], &dry["deduplicated"], &dry["active"]),
        (&Value::from(1), &Value::from(1), &Value::from(2)),
        "{dry}"
    );
    let entries = home.entries();
    assert!(
        entries.iter().all(|e| e["archived"] == false),
        "a dry run wrote"
    );

    let done: Value = serde_json::from_str(&home.memory_ok(&["maintain", "--json"])).unwrap();
    assert_eq!(done["dry_run"], false);
    assert_eq!(
        (&done["archived"], &done["deduplicated"], &done["active"]),
        (&Value::from(1), &Value::from(1), &Value::from(2)),
        "{done}"
    );
    assert!(done["elapsed_ms"].is_u64() && done["buffer_purged"] == 0);
    let entries = home.entries();
    assert_eq!(entries.len(), 4, "nothing is deleted");
    let kept = &entries[0];
    let dup = &entries[3];
    assert_eq!(kept["archived"], false);
    assert_eq!(dup["archived"], true);
    assert_eq!(dup["metadata"]["superseded_by"], kept["id"]);
    assert_eq!(entries[2]["archived"], true, "weight 0.2 is below 0.3");

    let text = home.memory_ok(&["maintain"]);
    assert!(text.contains("deduplicated  0"), "{text}");
    assert!(text.contains("active        2"), "{text}");
    let help = home.agcore().args(["memory", "--help"]).assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(help.contains("maintain"), "{help}");
}
