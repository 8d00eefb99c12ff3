//! A configuration file with a misspelt key stops every command with exit
//! code 2 and a message naming the valid key, in TOML and in YAML.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::str::contains;

#[test]
fn a_typo_exits_with_code_2_and_names_the_valid_key() {
    let home = Home::new();
    let config = home.path("agcore.toml");
    std::fs::write(&config, "[memory.long_term]\nmax_retrun = 3\n").unwrap();
    home.agcore()
        .arg("--config")
        .arg(&config)
        .args(["memory", "list", "--user", "alice", "--db"])
        .arg(home.db())
        .assert()
        .code(2)
        .stderr(contains(
            "unknown key `memory.long_term.max_retrun`; did you mean `max_return`?",
        ));
}

#[test]
fn a_misspelt_section_in_yaml_names_the_valid_one() {
    let home = Home::new();
    let config = home.path("agcore.yaml");
    std::fs::write(&config, "memory_agent:\n  extrct:\n    batch_size: 3\n").unwrap();
    home.agcore()
        .arg("--config")
        .arg(&config)
        .args(["memory", "list", "--user", "alice", "--db"])
        .arg(home.db())
        .assert()
        .code(2)
        .stderr(contains("agcore.yaml"))
        .stderr(contains(
            "unknown key `memory_agent.extrct`; did you mean `extract`?",
        ));
}
