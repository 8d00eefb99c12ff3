//! What the builders of the server backends (MySQL / MariaDB, PostgreSQL,
//! Redis) share: the [`ServerOptions`] each builder keeps, the builder
//! methods setting them ([`server_builder_methods!`](crate::server_builder_methods)),
//! an option of agcore's own taken out of a URL ([`take_url_param`]) and the
//! refusal of a URL the client cannot parse ([`not_a_url`]).

use std::time::Duration;

use crate::retriever::ContextField;
use crate::{EvictionConfig, MemoryError};

/// Most pooled connections of a server backend by default.
pub const DEFAULT_POOL_SIZE: usize = 16;

/// The options every server backend's builder keeps.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ServerOptions {
    /// Most pooled connections (at least 1).
    pub pool_size: usize,
    /// How long a call may wait for a connection (the driver says which wait).
    pub timeout: Duration,
    /// The store's eviction.
    pub eviction: EvictionConfig,
    /// The store's context field; `None` ranks every item as plain BM25.
    pub context: Option<ContextField>,
}

impl ServerOptions {
    /// [`DEFAULT_POOL_SIZE`] connections waited for up to `timeout`, no
    /// eviction, the default context field ([`ContextField::default`]).
    pub fn new(timeout: Duration) -> Self {
        Self {
            pool_size: DEFAULT_POOL_SIZE,
            timeout,
            eviction: EvictionConfig::none(),
            context: Some(ContextField::default()),
        }
    }
}

/// The refusal of `shown` (a URL, password redacted) that the client of
/// `server` (`"MySQL"`, …) cannot parse, naming the URL form it expects.
pub fn not_a_url(shown: &str, server: &str, form: &str) -> MemoryError {
    MemoryError::InvalidInput(format!("`{shown}` is not a {server} URL ({form})"))
}

/// Takes the parameter `name` (`name=value`) out of a URL's query string,
/// for an option of agcore's own that the client would refuse: the URL
/// without it (the other parameters kept in order) and its value, if given.
pub fn take_url_param(url: &str, name: &str) -> (String, Option<String>) {
    let Some((base, query)) = url.split_once('?') else {
        return (url.to_owned(), None);
    };
    let mut value = None;
    let rest: Vec<&str> = query
        .split('&')
        .filter(
            |pair| match pair.strip_prefix(name).and_then(|p| p.strip_prefix('=')) {
                Some(given) => {
                    value = Some(given.to_owned());
                    false
                }
                None => !pair.is_empty(),
            },
        )
        .collect();
    if rest.is_empty() {
        (base.to_owned(), value)
    } else {
        (format!("{base}?{}", rest.join("&")), value)
    }
}

/// The builder methods of the [`ServerOptions`] a builder keeps in its field
/// `$options`, expanded inside the builder's `impl` block:
/// `server_builder_methods!(options: pool_size, eviction, context_field);`
/// (any of the three, in any order).
#[macro_export]
macro_rules! server_builder_methods {
    ($options:ident: $($method:ident),+ $(,)?) => {
        $($crate::server_builder_methods!(@$method $options);)+
    };
    (@pool_size $options:ident) => {
        /// Most pooled connections (default 16, at least 1).
        pub fn pool_size(mut self, size: usize) -> Self {
            self.$options.pool_size = size.max(1);
            self
        }
    };
    (@eviction $options:ident) => {
        /// The store's eviction, applied after every `check_interval` saved
        /// items (default none): TTL drops items created at or before
        /// now − ttl (on Redis, a native expiry of each item); capacity keeps
        /// the newest `max_items`, dropping the oldest by `created_at`, then id.
        pub fn eviction(mut self, eviction: $crate::EvictionConfig) -> Self {
            self.$options.eviction = eviction;
            self
        }
    };
    (@context_field $options:ident) => {
        /// The store's context field (BM25F over neighbouring turns, see
        /// [`ContextField`]($crate::retriever::ContextField)): on by default
        /// with its defaults (sequence key `session`, window 1, weight 0.5),
        /// as in `InMemoryStore` and every other backend, which rank the same
        /// items alike; `None` ranks every item as plain BM25. Writers keep
        /// each field current as turns are saved, replaced, deleted, evicted
        /// and expire. Opening a database whose fields were derived with
        /// another sequence key or window derives them all again; every
        /// process sharing a database should use the same settings.
        pub fn context_field(
            mut self,
            context: Option<$crate::retriever::ContextField>,
        ) -> Self {
            self.$options.context = context;
            self
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Builder {
        options: ServerOptions,
    }

    impl Builder {
        server_builder_methods!(options: pool_size, eviction, context_field);
    }

    #[test]
    fn the_methods_set_the_options() {
        let builder = Builder {
            options: ServerOptions::new(Duration::from_secs(3)),
        };
        assert_eq!(builder.options.pool_size, DEFAULT_POOL_SIZE);
        assert!(builder.options.context.is_some());
        let builder = builder
            .pool_size(0)
            .context_field(None)
            .eviction(EvictionConfig::none());
        assert_eq!(builder.options.pool_size, 1, "at least one connection");
        assert!(builder.options.context.is_none());
        assert_eq!(builder.options.timeout, Duration::from_secs(3));
    }

    #[test]
    fn a_parameter_is_taken_out_of_the_url() {
        assert_eq!(
            take_url_param("postgres://h/db?schema=mem&connect_timeout=3", "schema"),
            (
                "postgres://h/db?connect_timeout=3".to_owned(),
                Some("mem".to_owned())
            )
        );
        assert_eq!(
            take_url_param("postgres://h/db?schema=x", "schema"),
            ("postgres://h/db".to_owned(), Some("x".to_owned()))
        );
        assert_eq!(
            take_url_param("postgres://h/db?schemas=x", "schema"),
            ("postgres://h/db?schemas=x".to_owned(), None)
        );
        assert_eq!(
            take_url_param("postgres://h/db", "schema"),
            ("postgres://h/db".to_owned(), None)
        );
    }

    #[test]
    fn an_unparsable_url_names_the_form() {
        let err = not_a_url("redis://h:x", "Redis", "redis://host:port/db");
        assert!(matches!(&err, MemoryError::InvalidInput(m)
            if m == "`redis://h:x` is not a Redis URL (redis://host:port/db)"));
    }
}
