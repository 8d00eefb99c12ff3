//! MySQL / MariaDB backend of agcore memory: MemoryStore and long-term memory on a MySQL 8 or MariaDB server, FULLTEXT over agcore's analyzer tokens.
