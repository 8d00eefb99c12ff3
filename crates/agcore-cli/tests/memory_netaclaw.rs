//! `agcore memory import --from-netaclaw URL`: a NetaClaw `netaclaw_memory`
//! table (the seed's DDL) on the MySQL / MariaDB test server
//! (`AGCORE_TEST_MYSQL_URL`; skipped without it outside CI) imported into
//! SQLite, every field mapped, the scope rules of `memory import` kept.
#![cfg(test)]

use crate::cli_support;

use cli_support::Home;
use mysql_async::prelude::Queryable;
use predicates::prelude::*;
use serde_json::Value;

/// The seed's table definition (section 3.2 of the NetaClaw memory design).
const SEED_DDL: &str = "CREATE TABLE netaclaw_memory (
  id INT AUTO_INCREMENT PRIMARY KEY,
  agent_name VARCHAR(100) NOT NULL,
  user_id VARCHAR(100) NOT NULL,
  type ENUM('user', 'project', 'feedback', 'reference') NOT NULL,
  name VARCHAR(255) NOT NULL,
  content TEXT NOT NULL,
  description VARCHAR(500) NOT NULL DEFAULT '',
  metadata JSON,
  created_at DATETIME DEFAULT CURRENT_TIMESTAMP,
  updated_at DATETIME DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,
  INDEX idx_agent_user (agent_name, user_id),
  INDEX idx_type (type),
  FULLTEXT INDEX ft_content (name, content, description) WITH PARSER ngram
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4";

const ROWS: &str = "INSERT INTO netaclaw_memory
  (agent_name, user_id, type, name, content, description, metadata, created_at, updated_at) VALUES
  ('netaclaw', 'u1', 'user', '饮品偏好', '用户早上喝龙井茶', '用户的饮品习惯', '{\"source\": \"微信\", \"n\": 2}', '2024-03-01 08:30:00', '2024-03-02 09:00:00'),
  ('netaclaw', 'u1', 'project', 'Deploy', 'The API deploys on Fridays', 'release cadence', NULL, '2024-03-03 10:00:00', '2024-03-03 10:00:00'),
  ('netaclaw', 'u1', 'feedback', '语气', '回答要简短', '', '[1, 2]', '2024-03-04 11:00:00', '2024-03-05 12:00:00'),
  ('netaclaw', 'u2', 'reference', 'Runbook', 'https://wiki.example/runbook', 'ops runbook', NULL, '2024-03-06 13:00:00', '2024-03-06 13:00:00')";

struct Server {
    rt: tokio::runtime::Runtime,
    base: String,
    database: String,
}

impl Server {
    fn sql(&self, sql: &str) -> Result<(), mysql_async::Error> {
        let url = format!("{}/{}", self.root(), self.database);
        let sql = sql.to_owned();
        self.rt.block_on(async move {
            let pool = mysql_async::Pool::new(url.as_str());
            let mut conn = pool.get_conn().await?;
            let result = conn.query_drop(sql).await;
            drop(conn);
            pool.disconnect().await?;
            result
        })
    }

    fn unix(&self, datetime: &str) -> i64 {
        let url = format!("{}/{}", self.root(), self.database);
        let sql = format!("SELECT CAST(UNIX_TIMESTAMP('{datetime}') AS SIGNED)");
        self.rt.block_on(async move {
            let pool = mysql_async::Pool::new(url.as_str());
            let mut conn = pool.get_conn().await.unwrap();
            let n: Option<i64> = conn.query_first(sql).await.unwrap();
            drop(conn);
            pool.disconnect().await.unwrap();
            n.unwrap()
        })
    }

    fn root(&self) -> &str {
        self.base
            .rsplit_once('/')
            .map_or(self.base.as_str(), |(root, _)| root)
    }

    fn url(&self) -> String {
        format!("{}/{}", self.root(), self.database)
    }
}

/// A fresh database holding the seed's table and four rows (two users).
fn netaclaw_server() -> Option<Server> {
    let base = agcore_memory_testkit::service_url("AGCORE_TEST_MYSQL_URL")?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let database = format!(
        "agt_netaclaw_{}_{}",
        std::process::id(),
        rand::random::<u32>()
    );
    let server = Server { rt, base, database };
    let admin = Server {
        rt: tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap(),
        base: server.base.clone(),
        database: server
            .base
            .rsplit_once('/')
            .map_or("", |(_, db)| db)
            .split('?')
            .next()
            .unwrap()
            .to_owned(),
    };
    admin
        .sql(&format!("CREATE DATABASE {}", server.database))
        .unwrap();
    // MariaDB has no `ngram` parser: the same table with its default parser.
    if server.sql(SEED_DDL).is_err() {
        server
            .sql(&SEED_DDL.replace(" WITH PARSER ngram", ""))
            .unwrap();
    }
    server.sql(ROWS).unwrap();
    Some(server)
}

fn import(home: &Home, url: &str, extra: &[&str]) -> assert_cmd::assert::Assert {
    let mut cmd = home.agcore();
    cmd.args(["memory", "import", "--from-netaclaw", url, "--json", "--db"])
        .arg(home.db())
        .args(extra);
    cmd.assert()
}

fn entries(home: &Home, user: &str) -> Vec<Value> {
    let mut cmd = home.agcore();
    cmd.args([
        "memory",
        "list",
        "--json",
        "--archived",
        "--sort",
        "created",
    ])
    .args(["--agent", "netaclaw", "--user", user, "--db"])
    .arg(home.db());
    serde_json::from_slice(&cmd.assert().success().get_output().stdout).unwrap()
}

#[test]
fn a_netaclaw_table_imports_field_by_field() {
    let Some(server) = netaclaw_server() else {
        return;
    };
    let url = server.url();
    let home = Home::new();
    // Two users in the table: refused without a flag, nothing written.
    import(&home, &url, &["--agent", "netaclaw", "--user", "u1"])
        .failure()
        .code(3)
        .stderr(predicate::str::contains(
            "2 scopes (netaclaw/u1, netaclaw/u2)",
        ));
    assert!(entries(&home, "u1").is_empty());

    let out = import(&home, &url, &["--all-scopes"]).success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(
        report,
        serde_json::json!({"read": 4, "imported": 4, "skipped": 0})
    );

    let u1 = entries(&home, "u1");
    assert_eq!(u1.len(), 3, "{u1:?}");
    let tea = &u1[0];
    assert_eq!(tea["agent_name"], "netaclaw");
    assert_eq!(tea["user_id"], "u1");
    assert_eq!(tea["memory_type"], "user");
    assert_eq!(tea["name"], "饮品偏好");
    assert_eq!(tea["content"], "用户早上喝龙井茶");
    assert_eq!(tea["description"], "用户的饮品习惯");
    assert_eq!(
        tea["metadata"],
        serde_json::json!({"source": "微信", "n": 2})
    );
    assert_eq!(tea["weight"], 1.0);
    assert_eq!(tea["tags"], serde_json::json!([]));
    assert_eq!(tea["archived"], false);
    assert_eq!(tea["use_count"], 0);
    let created = chrono::DateTime::from_timestamp(server.unix("2024-03-01 08:30:00"), 0).unwrap();
    let updated = chrono::DateTime::from_timestamp(server.unix("2024-03-02 09:00:00"), 0).unwrap();
    let time = |v: &Value| {
        v.as_str()
            .unwrap()
            .parse::<chrono::DateTime<chrono::Utc>>()
            .unwrap()
    };
    assert_eq!(time(&tea["created_at"]), created);
    assert_eq!(time(&tea["updated_at"]), updated);
    assert_eq!(time(&tea["weight_updated_at"]), updated);
    assert_eq!(u1[1]["memory_type"], "project");
    assert_eq!(u1[1]["metadata"], serde_json::json!({}));
    assert_eq!(u1[2]["memory_type"], "feedback");
    assert_eq!(u1[2]["metadata"], serde_json::json!({"value": [1, 2]}));
    let u2 = entries(&home, "u2");
    assert_eq!(u2.len(), 1);
    assert_eq!(u2[0]["memory_type"], "reference");

    // Imported Chinese is searchable; a second run skips what is there.
    let mut search = home.agcore();
    search
        .args([
            "memory", "search", "龙井", "--json", "--agent", "netaclaw", "--user", "u1", "--db",
        ])
        .arg(home.db());
    let hits = String::from_utf8(search.assert().success().get_output().stdout.clone()).unwrap();
    assert!(hits.contains("用户早上喝龙井茶"), "{hits}");
    let again = import(&home, &url, &["--all-scopes"]).success();
    let report: Value = serde_json::from_slice(&again.get_output().stdout).unwrap();
    assert_eq!(
        report,
        serde_json::json!({"read": 4, "imported": 0, "skipped": 4})
    );

    // --into-scope merges on purpose.
    let merged = Home::new();
    let out = import(&merged, &url, &["--into-scope", "assistant/alice"]).success();
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["imported"], 4);

    // A missing table is named in the error.
    import(
        &home,
        &url,
        &["--all-scopes", "--netaclaw-table", "no_such_table"],
    )
    .failure()
    .stderr(predicate::str::contains("no_such_table"));
    let admin_drop = format!("DROP DATABASE {}", server.database);
    server.sql(&admin_drop).unwrap();
}

#[test]
fn a_bad_netaclaw_url_or_table_name_is_refused() {
    let home = Home::new();
    import(&home, "postgres://x@127.0.0.1/db", &[])
        .failure()
        .stderr(predicate::str::contains("not a MySQL URL"));
    import(
        &home,
        "mysql://u@127.0.0.1:9/db",
        &["--netaclaw-table", "t;drop"],
    )
    .failure()
    .stderr(predicate::str::contains("is not a table name"));
}
