//! The schema version table: written on open, a no-op on reopen, several
//! opens at once migrate once, and a newer schema is refused untouched.
#![cfg(test)]

use crate::support;

use agcore_memory::{MemoryError, MemoryItem, MemoryStore};
use agcore_memory_mysql::MysqlDatabase;
use mysql_async::prelude::Queryable;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn versions_are_recorded_and_newer_schemas_refused() {
    let Some(base) = support::url() else { return };
    let name = support::database_name("schema");
    support::create(&base, &name).await;
    let url = support::with_database(&base, &name);
    let open = || {
        let url = url.clone();
        async move { MysqlDatabase::builder().pool_size(2).open(&url).await }
    };
    // Eight opens at once on an empty database: one migration, no error.
    let opens: Vec<_> = (0..8).map(|_| tokio::spawn(open())).collect();
    for handle in opens {
        handle.await.unwrap().unwrap();
    }
    let db = open().await.unwrap();
    let versions = db.schema_versions().await.unwrap();
    assert_eq!(
        versions,
        vec![("long_term".to_owned(), 3), ("store".to_owned(), 4)]
    );
    assert!(db.version().starts_with("MariaDB ") || db.version().starts_with("MySQL "));
    db.store()
        .save(MemoryItem::new("kept", "still here"))
        .await
        .unwrap();

    let again = open().await.unwrap();
    assert_eq!(again.schema_versions().await.unwrap(), versions);
    assert!(again.store().get("kept").await.unwrap().is_some());

    let mut conn = db.pool().get_conn().await.unwrap();
    conn.query_drop("UPDATE agcore_schema SET version = 99 WHERE component = 'store'")
        .await
        .unwrap();
    let err = open().await.unwrap_err();
    assert!(matches!(err, MemoryError::Storage(_)), "{err}");
    let text = err.to_string();
    assert!(
        text.contains("version 99, newer than the version 4"),
        "{text}"
    );
    // Back to version 2: the context field's step runs again, harmlessly.
    conn.query_drop("UPDATE agcore_schema SET version = 2 WHERE component = 'store'")
        .await
        .unwrap();
    assert!(
        open()
            .await
            .unwrap()
            .store()
            .get("kept")
            .await
            .unwrap()
            .is_some()
    );
    drop(conn);
    support::drop_databases(&base, "schema").await;
}
