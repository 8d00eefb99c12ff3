//! Unit tests of [`McpServerConfig`]: (de)serialization, defaults and validation.

use super::*;

#[test]
fn deserializes_stdio_with_defaults() {
    let config: McpServerConfig =
        serde_json::from_str(r#"{"name":"fs","transport":"stdio","command":"mcp-fs"}"#).unwrap();
    assert_eq!(config.call_timeout, DEFAULT_CALL_TIMEOUT);
    assert_eq!(config.connect_timeout, DEFAULT_CONNECT_TIMEOUT);
    assert_eq!(
        config.transport,
        McpTransport::Stdio(StdioTransport::new("mcp-fs"))
    );
    config.validate().unwrap();
}

#[test]
fn deserializes_http_with_headers_and_fractional_timeout() {
    let config: McpServerConfig = serde_json::from_str(
        r#"{"name":"remote","transport":"streamable_http","url":"https://example.com/mcp",
            "headers":{"Authorization":"Bearer s3cret"},"call_timeout_secs":1.5}"#,
    )
    .unwrap();
    assert_eq!(config.call_timeout, Duration::from_millis(1500));
    let McpTransport::StreamableHttp(http) = &config.transport else {
        panic!("expected HTTP transport");
    };
    assert_eq!(http.headers["Authorization"], "Bearer s3cret");
    config.validate().unwrap();
    let debug = format!("{config:?}");
    assert!(debug.contains("Authorization"));
    assert!(
        !debug.contains("s3cret"),
        "header values must not be printed: {debug}"
    );
}

#[test]
fn deserializes_a_toml_server_list() {
    #[derive(Deserialize)]
    struct File {
        mcp_servers: Vec<McpServerConfig>,
    }
    let file: File = toml::from_str(
        r#"
        [[mcp_servers]]
        name = "everything"
        transport = "stdio"
        command = "npx"
        args = ["-y", "@modelcontextprotocol/server-everything"]
        env = { LOG_LEVEL = "warn" }
        call_timeout_secs = 60

        [[mcp_servers]]
        name = "docs"
        transport = "streamable_http"
        url = "http://127.0.0.1:3001/mcp"
        headers = { Authorization = "Bearer t" }
        connect_timeout_secs = 2.5
        "#,
    )
    .unwrap();
    let [stdio, http] = &file.mcp_servers[..] else {
        panic!("expected two servers");
    };
    assert_eq!(
        stdio.transport,
        McpTransport::Stdio(
            StdioTransport::new("npx")
                .with_args(["-y", "@modelcontextprotocol/server-everything"])
                .with_env("LOG_LEVEL", "warn")
        )
    );
    assert_eq!(stdio.call_timeout, Duration::from_secs(60));
    assert_eq!(
        http.transport,
        McpTransport::StreamableHttp(
            StreamableHttpTransport::new("http://127.0.0.1:3001/mcp")
                .with_header("Authorization", "Bearer t")
        )
    );
    assert_eq!(http.connect_timeout, Duration::from_millis(2500));
    assert_eq!(http.call_timeout, DEFAULT_CALL_TIMEOUT);
}

#[test]
fn round_trips_through_json() {
    let config = McpServerConfig::new(
        "everything",
        StdioTransport::new("node")
            .with_args(["server.js"])
            .with_env("API_KEY", "k")
            .with_cwd("/tmp"),
    )
    .with_call_timeout(Duration::from_millis(250));
    let json = serde_json::to_string(&config).unwrap();
    let back: McpServerConfig = serde_json::from_str(&json).unwrap();
    assert_eq!(back, config);
}

#[test]
fn rejects_negative_timeout_and_unknown_transport() {
    let negative = serde_json::from_str::<McpServerConfig>(
        r#"{"name":"x","transport":"stdio","command":"c","call_timeout_secs":-1}"#,
    );
    assert!(negative.is_err());
    let unknown =
        serde_json::from_str::<McpServerConfig>(r#"{"name":"x","transport":"carrier_pigeon"}"#);
    assert!(unknown.is_err());
}

#[test]
fn validate_names_the_problem() {
    let err = McpServerConfig::stdio("", "cmd", Vec::<String>::new())
        .validate()
        .unwrap_err();
    assert!(err.to_string().contains("name is empty"), "{err}");
    let err = McpServerConfig::streamable_http("web", "ftp://host/mcp")
        .validate()
        .unwrap_err();
    assert!(
        err.to_string().contains("not an absolute http(s) URL"),
        "{err}"
    );
    let err = McpServerConfig::new(
        "web",
        StreamableHttpTransport::new("http://127.0.0.1:1/mcp").with_header("bad header", "v"),
    )
    .validate()
    .unwrap_err();
    assert!(err.to_string().contains("bad header name"), "{err}");
    let err = McpServerConfig::stdio("s", "cmd", ["a"])
        .with_call_timeout(Duration::ZERO)
        .validate()
        .unwrap_err();
    assert!(err.to_string().contains("greater than zero"), "{err}");
}
