//! Redis backend of agcore memory: MemoryStore with native TTL and a server-side BM25 index, conversation and session memory.
