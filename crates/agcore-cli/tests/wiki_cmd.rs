//! `agcore wiki …` end to end: ingest a folder, search it, re-ingest, export.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use predicates::prelude::*;
use serde_json::Value;

fn notes(home: &Home) -> std::path::PathBuf {
    let dir = home.path("notes");
    std::fs::create_dir_all(dir.join("guide")).unwrap();
    std::fs::create_dir_all(dir.join(".hidden")).unwrap();
    std::fs::write(
        dir.join("guide/setup.md"),
        "# Setup\nHow to get going.\n\n## Install\nDownload the archive and unpack it with tar.\n\n\
         ## Proxy\nSet HTTPS_PROXY when the network needs a proxy. See [faq](../faq.md#firewall).\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("faq.md"),
        "# FAQ\n\n## Firewall\nOpen port 8443 for the dashboard.\n\n## 部署\n部署之前先备份数据库。\n",
    )
    .unwrap();
    std::fs::write(dir.join("todo.txt"), "Water the plants on Sunday.\n").unwrap();
    std::fs::write(dir.join("image.png"), [0u8, 1, 2]).unwrap();
    std::fs::write(dir.join(".hidden/secret.md"), "# Secret\nnope\n").unwrap();
    dir
}

fn wiki(home: &Home, args: &[&str]) -> assert_cmd::assert::Assert {
    let mut cmd = home.agcore();
    cmd.arg("wiki")
        .args(args)
        .arg("--db")
        .arg(home.path("wiki.db"));
    cmd.assert()
}

fn json(assert: assert_cmd::assert::Assert) -> Value {
    serde_json::from_slice(&assert.success().get_output().stdout).unwrap()
}

#[test]
fn ingest_search_reingest_and_export() {
    let home = Home::new();
    let dir = notes(&home);
    let dir_s = dir.to_str().unwrap();
    let report = json(wiki(&home, &["ingest", dir_s, "--json"]));
    assert_eq!(report["files"], 3, "{report}");
    // setup.md: Setup, Install, Proxy; faq.md: FAQ, Firewall, 部署; todo.txt: one page.
    assert_eq!(report["sections"], 7, "{report}");
    assert_eq!(report["created"], 7);

    let hits = json(wiki(&home, &["search", "proxy network", "--json"]));
    assert_eq!(hits[0]["title"], "guide/setup.md › Setup › Proxy");
    assert_eq!(hits[0]["id"], "guide-setup-md--setup-proxy");
    assert_eq!(
        hits[0]["references"],
        serde_json::json!(["faq-md--faq-firewall"])
    );
    assert!(hits[0]["score"].as_f64().unwrap() > 0.0);
    let hits = json(wiki(
        &home,
        &["search", "备份数据库", "--limit", "1", "--json"],
    ));
    assert_eq!(hits.as_array().unwrap().len(), 1);
    assert_eq!(hits[0]["title"], "faq.md › FAQ › 部署");
    let table = wiki(&home, &["search", "tar archive"])
        .success()
        .get_output()
        .stdout
        .clone();
    let table = String::from_utf8(table).unwrap();
    assert!(
        table.starts_with("SCORE") && table.lines().nth(1).unwrap().contains("Install"),
        "{table}"
    );

    // Re-ingesting the same folder changes nothing.
    let again = json(wiki(&home, &["ingest", dir_s, "--json"]));
    assert_eq!(
        (again["created"].clone(), again["unchanged"].clone()),
        (0.into(), 7.into()),
        "{again}"
    );
    // An edited file: one section changed, one gone.
    std::fs::write(
        dir.join("faq.md"),
        "# FAQ\n\n## Firewall\nOpen port 9443 for the dashboard.\n",
    )
    .unwrap();
    let edited = json(wiki(&home, &["ingest", dir_s, "--json"]));
    assert_eq!(edited["updated"], 1, "{edited}");
    assert_eq!(edited["removed"], 1, "{edited}");
    assert_eq!(edited["unchanged"], 5, "{edited}");
    let hits = json(wiki(&home, &["search", "dashboard port", "--json"]));
    assert_eq!(hits.as_array().unwrap().len(), 1, "no duplicate pages");
    assert!(hits[0]["content"].as_str().unwrap().contains("9443"));

    let out = home.path("exported");
    let exported = json(wiki(&home, &["export", out.to_str().unwrap(), "--json"]));
    assert_eq!(exported["pages"], 6);
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    assert!(index.contains("guide/setup.md › Setup › Proxy"), "{index}");
    let log = std::fs::read_to_string(out.join("log.md")).unwrap();
    assert!(log.contains("delete") && log.contains("update"), "{log}");
    assert_eq!(std::fs::read_dir(out.join("pages")).unwrap().count(), 6);
}

#[test]
fn bad_folders_are_bad_input() {
    let home = Home::new();
    wiki(&home, &["ingest", home.path("nowhere").to_str().unwrap()])
        .code(3)
        .stderr(predicate::str::contains("nowhere: not a folder"));
    let dir = home.path("latin1");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bad.md"), [0xffu8, 0xfe, b'a']).unwrap();
    wiki(&home, &["ingest", dir.to_str().unwrap()])
        .code(3)
        .stderr(predicate::str::contains(
            "bad.md: cannot read it as UTF-8 text",
        ));
    wiki(&home, &["search", "x"])
        .success()
        .stdout(predicate::str::contains("no page matches"));
}

#[test]
fn default_database_lives_in_the_data_dir() {
    let home = Home::new();
    let dir = notes(&home);
    home.agcore()
        .args(["wiki", "ingest", dir.to_str().unwrap()])
        .assert()
        .success();
    assert!(home.path("data/agcore/wiki.db").exists());
}

#[test]
fn every_subcommand_has_help_with_an_example() {
    let home = Home::new();
    for sub in ["ingest", "search", "export"] {
        home.agcore()
            .args(["wiki", sub, "--help"])
            .assert()
            .success()
            .stdout(
                predicate::str::contains("Examples:")
                    .and(predicate::str::contains(format!("agcore wiki {sub}"))),
            );
    }
}

/// The wiki on PostgreSQL through `--db postgres://…?schema=…` (a schema of
/// its own), on MariaDB (the test database; pages are upserted, so reruns
/// agree), on Redis and on a JSON file: ingest, then search finds the page.
#[test]
fn wiki_runs_on_postgres_mysql_redis_and_json_file_urls() {
    let mut urls = vec![];
    let mut schema = None;
    let home = Home::new();
    urls.push(format!("json-file://{}", home.path("wiki.json").display()));
    if let Some(pg) = agcore_memory_testkit::service_url("AGCORE_TEST_POSTGRES_URL") {
        let sep = if pg.contains('?') { '&' } else { '?' };
        let own = format!("agt_cli_wiki_{}", std::process::id());
        urls.push(format!("{pg}{sep}schema={own}"));
        schema = Some((pg, own));
    }
    if let Some(my) = agcore_memory_testkit::service_url("AGCORE_TEST_MYSQL_URL") {
        urls.push(my);
    }
    let docs = home.path("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(
        docs.join("deploy.md"),
        "# Deploy\n\nWe ship with blue-green releases.\n\n# 部署\n\n使用蓝绿发布。\n",
    )
    .unwrap();
    for url in urls {
        let mut ingest = home.agcore();
        ingest
            .args(["wiki", "ingest"])
            .arg(&docs)
            .args(["--db", &url]);
        ingest.assert().success();
        let mut search = home.agcore();
        search.args(["wiki", "search", "蓝绿发布", "--json", "--db", &url]);
        let out = search.assert().success().get_output().stdout.clone();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("使用蓝绿发布"), "{url}: {text}");
    }
    if let Some((pg, own)) = schema {
        crate::cli_support::drop_pg_schema(&pg, &own);
    }
}
