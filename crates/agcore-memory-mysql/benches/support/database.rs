//! Bench databases: dropped, created empty, and named in a server URL.

use mysql_async::prelude::Queryable;

/// Drops the database `name` if it exists, and creates it again empty when
/// `create`.
pub async fn reset(url: &str, name: &str, create: bool) {
    let pool = mysql_async::Pool::new(url);
    let mut conn = pool.get_conn().await.unwrap();
    conn.query_drop(format!("DROP DATABASE IF EXISTS {name}"))
        .await
        .unwrap();
    if create {
        conn.query_drop(format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
    }
    drop(conn);
    pool.disconnect().await.unwrap();
}

/// `url` with its database replaced by `database`.
pub fn with_database(url: &str, database: &str) -> String {
    let root = url.rsplit_once('/').map_or(url, |(root, _)| root);
    format!("{root}/{database}")
}
