//! [`NetaclawSource`]: reading the memories of a NetaClaw MySQL table
//! (`netaclaw_memory`: `id`, `agent_name`, `user_id`, `type`, `name`,
//! `content`, `description`, `metadata` JSON, `created_at`, `updated_at`)
//! as long-term [`MemoryEntry`]s, for an import into any backend.

use agcore_memory::MemoryError;
use agcore_memory::long_term::columns::legacy_metadata;
use agcore_memory::long_term::{MemoryEntry, MemoryType};
use agcore_memory::server_error::naming_server;
use chrono::{DateTime, Utc};
use mysql_async::prelude::Queryable;
use mysql_async::{OptsBuilder, Pool};

use crate::error::MysqlError;

/// The table NetaClaw keeps its memories in.
pub const NETACLAW_TABLE: &str = "netaclaw_memory";

/// One row as read: id, agent, user, type, name, content, description,
/// metadata, created and updated (Unix seconds).
type Row = (
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    Option<String>,
    Option<i64>,
    Option<i64>,
);

/// A NetaClaw memory table on a MySQL / MariaDB server, read in id order.
///
/// Each row maps to a [`MemoryEntry`] field by field: `agent_name` and
/// `user_id` to the scope, `type` (`user`, `project`, `feedback`,
/// `reference`) to [`MemoryType`], `name`, `content` and `description` as
/// they are, `metadata` to the metadata object
/// ([`legacy_metadata`], as the SQLite upgrade of the same layout does),
/// `created_at` / `updated_at` read in the
/// server's time zone as UTC instants (a `NULL` creation time is the import
/// time, a `NULL` update time the creation time). NetaClaw keeps no weight,
/// tags or usage: entries get the weight of a new memory (1.0, set at
/// `updated_at`), no tags, not archived, never used. Ids are not kept (the
/// importing store assigns its own).
pub struct NetaclawSource {
    pool: Pool,
    table: String,
    shown: String,
}

impl std::fmt::Debug for NetaclawSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetaclawSource")
            .field("url", &self.shown)
            .field("table", &self.table)
            .finish_non_exhaustive()
    }
}

/// Whether `name` is a table name this reader quotes safely: letters,
/// digits, `_` and `$`, optionally `database.table`.
fn valid_table(name: &str) -> bool {
    let part = |p: &str| {
        !p.is_empty()
            && p.len() <= 64
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    match name.split_once('.') {
        Some((db, table)) => part(db) && part(table),
        None => part(name),
    }
}

fn time(seconds: Option<i64>) -> Option<DateTime<Utc>> {
    seconds.and_then(|s| DateTime::from_timestamp(s, 0))
}

/// The entry of one NetaClaw row (see [`NetaclawSource`]).
///
/// # Errors
/// [`MemoryError::InvalidInput`] naming the row for a type NetaClaw does not have.
fn entry(row: Row, now: DateTime<Utc>) -> Result<MemoryEntry, MemoryError> {
    let (id, agent, user, kind, name, content, description, meta, created, updated) = row;
    let memory_type = match kind.as_str() {
        "user" => MemoryType::User,
        "project" => MemoryType::Project,
        "feedback" => MemoryType::Feedback,
        "reference" => MemoryType::Reference,
        other => {
            return Err(MemoryError::InvalidInput(format!(
                "NetaClaw row {id}: unknown type `{other}` (user, project, feedback or reference)"
            )));
        }
    };
    let created_at = time(created).unwrap_or(now);
    let updated_at = time(updated).unwrap_or(created_at);
    Ok(MemoryEntry {
        id: 0,
        agent_name: agent,
        user_id: user,
        memory_type,
        name,
        content,
        description,
        metadata: legacy_metadata(meta.as_deref()),
        tags: Vec::new(),
        weight: 1.0,
        archived: false,
        use_count: 0,
        last_used_at: None,
        weight_updated_at: updated_at,
        created_at,
        updated_at,
    })
}

impl NetaclawSource {
    /// Connects to the server of `url` (`mysql://user:password@host:port/database`
    /// or `mariadb://…`) to read `table` (default [`NETACLAW_TABLE`];
    /// `name` or `database.name`). Nothing is written to that database.
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a malformed URL or table name;
    /// [`MemoryError::Unavailable`] when the server cannot be reached;
    /// [`MemoryError::Storage`] when the table is missing. Errors never show
    /// the password.
    pub async fn connect(url: &str, table: &str) -> Result<Self, MemoryError> {
        if !valid_table(table) {
            return Err(MemoryError::InvalidInput(format!(
                "`{table}` is not a table name (letters, digits, `_`, optionally `database.table`)"
            )));
        }
        let (opts, shown) = crate::builder::parse_url(url)?;
        let opts = OptsBuilder::from_opts(opts).setup(vec!["SET NAMES utf8mb4"]);
        let table = table
            .split('.')
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(".");
        let source = Self {
            pool: Pool::new(opts),
            table,
            shown,
        };
        // Fails early (with the server's message) when the table is missing.
        source.count().await?;
        Ok(source)
    }

    fn failed(&self, err: mysql_async::Error) -> MemoryError {
        naming_server(MysqlError::from(err).into(), &self.shown)
    }

    /// How many rows the table holds.
    ///
    /// # Errors
    /// The server's errors.
    pub async fn count(&self) -> Result<u64, MemoryError> {
        let query = format!("SELECT COUNT(*) FROM {}", self.table);
        let mut conn = self.pool.get_conn().await.map_err(|e| self.failed(e))?;
        let n: Option<u64> = conn.query_first(query).await.map_err(|e| self.failed(e))?;
        Ok(n.unwrap_or(0))
    }

    /// The `(agent_name, user_id)` pairs of the table with their row counts,
    /// sorted.
    ///
    /// # Errors
    /// The server's errors.
    pub async fn scopes(&self) -> Result<Vec<(String, String, u64)>, MemoryError> {
        let query = format!(
            "SELECT agent_name, user_id, COUNT(*) FROM {} GROUP BY agent_name, user_id \
             ORDER BY agent_name, user_id",
            self.table
        );
        let mut conn = self.pool.get_conn().await.map_err(|e| self.failed(e))?;
        conn.query(query).await.map_err(|e| self.failed(e))
    }

    /// Up to `limit` entries of the rows whose id is above `after`, in id
    /// order, each with its NetaClaw id (pass the last one as the next `after`).
    ///
    /// # Errors
    /// [`MemoryError::InvalidInput`] for a row of an unknown type; the server's errors.
    pub async fn read_after(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<(i64, MemoryEntry)>, MemoryError> {
        let query = format!(
            "SELECT id, agent_name, user_id, CAST(type AS CHAR), name, content, description, \
             CAST(metadata AS CHAR), CAST(UNIX_TIMESTAMP(created_at) AS SIGNED), \
             CAST(UNIX_TIMESTAMP(updated_at) AS SIGNED) FROM {} WHERE id > ? ORDER BY id LIMIT ?",
            self.table
        );
        let mut conn = self.pool.get_conn().await.map_err(|e| self.failed(e))?;
        let rows: Vec<Row> = conn
            .exec(query, (after, u64::try_from(limit).unwrap_or(u64::MAX)))
            .await
            .map_err(|e| self.failed(e))?;
        let now = Utc::now();
        rows.into_iter()
            .map(|row| {
                let id = row.0;
                entry(row, now).map(|e| (id, e))
            })
            .collect()
    }

    /// Closes the connections.
    pub async fn close(self) {
        if let Err(err) = self.pool.disconnect().await {
            tracing::debug!(error = %err, "NetaClaw source: disconnect failed");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_are_checked() {
        assert!(valid_table("netaclaw_memory"));
        assert!(valid_table("legacy.netaclaw_memory"));
        for bad in ["", "a b", "t;drop", "a.b.c", "`t`", "表"] {
            assert!(!valid_table(bad), "{bad}");
        }
    }

    #[test]
    fn rows_map_field_by_field() {
        let now = Utc::now();
        let row: Row = (
            7,
            "netaclaw".into(),
            "u1".into(),
            "feedback".into(),
            "语气".into(),
            "回答要简短".into(),
            "用户的偏好".into(),
            Some(r#"{"k":1}"#.into()),
            Some(1_700_000_000),
            None,
        );
        let e = entry(row, now).unwrap();
        assert_eq!(e.memory_type, MemoryType::Feedback);
        assert_eq!(
            (e.agent_name.as_str(), e.user_id.as_str()),
            ("netaclaw", "u1")
        );
        assert_eq!(e.created_at.timestamp(), 1_700_000_000);
        assert_eq!(e.updated_at, e.created_at);
        assert_eq!(e.weight_updated_at, e.updated_at);
        assert_eq!(e.metadata["k"], 1);
        let mut bad: Row = (
            8,
            "a".into(),
            "u".into(),
            "fact".into(),
            "n".into(),
            "c".into(),
            String::new(),
            None,
            None,
            None,
        );
        assert!(entry(bad.clone(), now).is_err());
        bad.3 = "user".into();
        assert_eq!(entry(bad, now).unwrap().created_at, now);
    }
}
