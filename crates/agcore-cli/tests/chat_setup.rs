//! `agcore chat` endpoint settings: flags over environment over the
//! configuration file, help, and the one-sentence failures (exit 2) without
//! a reachable server.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::prelude::*;

#[test]
fn no_endpoint_is_one_sentence_and_exit_2() {
    let home = Home::new();
    let out = home
        .agcore()
        .args(["chat", "--db"])
        .arg(home.db())
        .write_stdin("hello\n")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("set OPENAI_BASE_URL and AGCORE_MODEL"),
        "{stderr}"
    );
    assert!(stderr.contains("agcore.toml"), "{stderr}");
    assert!(!stderr.contains("panicked"));
    // Only a base URL: the model is named.
    home.agcore()
        .args(["chat", "--db"])
        .arg(home.db())
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .write_stdin("hello\n")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("set AGCORE_MODEL"));
}

fn refused_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[test]
fn refused_port_is_one_sentence_and_exit_2() {
    let home = Home::new();
    let url = format!("http://127.0.0.1:{}/v1", refused_port());
    let out = home
        .agcore()
        .args(["chat", "--model", "m", "--db"])
        .arg(home.db())
        .env("OPENAI_BASE_URL", &url)
        .write_stdin("hello\nsecond line\n")
        .assert()
        .code(2)
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with(&format!("error: cannot reach the LLM endpoint {url}")),
        "{stderr}"
    );
    assert!(
        stderr.contains("OPENAI_BASE_URL") && !stderr.contains("panicked"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn flags_override_environment_which_overrides_the_file() {
    let home = Home::new();
    let (file_url, env_url, flag_url) = (
        format!("http://127.0.0.1:{}/v1", refused_port()),
        format!("http://127.0.0.1:{}/v2", refused_port()),
        format!("http://127.0.0.1:{}/v3", refused_port()),
    );
    let config = home.path("my.toml");
    std::fs::write(
        &config,
        format!("[llm]\nbase_url = \"{file_url}\"\nmodel = \"m\"\n"),
    )
    .unwrap();
    let run = |env: Option<&str>, flag: Option<&str>| {
        let mut cmd = home.agcore();
        cmd.args(["chat", "--config", config.to_str().unwrap(), "--db"])
            .arg(home.db());
        if let Some(e) = env {
            cmd.env("OPENAI_BASE_URL", e);
        }
        if let Some(f) = flag {
            cmd.args(["--base-url", f]);
        }
        let out = cmd
            .write_stdin("hi\n")
            .assert()
            .code(2)
            .get_output()
            .clone();
        String::from_utf8(out.stderr).unwrap()
    };
    assert!(run(None, None).contains(&file_url));
    assert!(run(Some(&env_url), None).contains(&env_url));
    assert!(run(Some(&env_url), Some(&flag_url)).contains(&flag_url));
    // AGCORE_CONFIG names the file too; a broken file is one line, exit 2.
    std::fs::write(&config, "[llm]\nbase_url = 3\n").unwrap();
    home.agcore()
        .args(["chat", "--db"])
        .arg(home.db())
        .env("AGCORE_CONFIG", &config)
        .write_stdin("hi\n")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("my.toml is not a valid configuration")
                .and(predicate::function(|s: &str| s.lines().count() == 1)),
        );
}

#[test]
fn chat_help_has_an_example() {
    Home::new()
        .agcore()
        .args(["chat", "--help"])
        .assert()
        .success()
        .stdout(
            predicate::str::contains("Examples:")
                .and(predicate::str::contains("agcore chat --user alice")),
        );
}
