//! PostgreSQL backend of agcore memory: MemoryStore and long-term memory on a PostgreSQL server, BM25 over agcore's analyzer tokens.
