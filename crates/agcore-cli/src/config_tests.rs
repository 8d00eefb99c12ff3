//! Tests of `config.rs`: sections, secrets, unknown keys.

use super::*;

#[test]
fn sections_parse_and_paths_resolve_against_the_file() {
    let text = "[llm]\nbase_url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n\n\
                [memory.long_term]\npath = \"mem.db\"\nmax_return = 3\n\n\
                [memory_agent]\nenabled = false\n";
    let config = AppConfig::parse(text, Path::new("/etc/agcore/agcore.toml")).unwrap();
    assert_eq!(config.llm.model.as_deref(), Some("m"));
    assert_eq!(config.settings.memory.long_term.max_return, 3);
    assert_eq!(config.memory_db, Some(PathBuf::from("/etc/agcore/mem.db")));
    assert!(config.extraction_configured);
    let bare = AppConfig::parse("", Path::new("a.toml")).unwrap();
    assert_eq!(bare.memory_db, None);
    assert_eq!(bare.storage_url, None);
    let text = "[storage]\nurl = \"postgres://agcore@db.internal/agcore\"\n";
    let pg = AppConfig::parse(text, Path::new("/etc/agcore/agcore.toml")).unwrap();
    assert_eq!(
        pg.storage_url.as_deref(),
        Some("postgres://agcore@db.internal/agcore")
    );
    let text = "[storage]\nurl = \"data/all.db\"\n";
    let file = AppConfig::parse(text, Path::new("/etc/agcore/agcore.toml")).unwrap();
    assert_eq!(file.storage_url.as_deref(), Some("/etc/agcore/data/all.db"));
    let err = AppConfig::parse("[storage]\npath = 1\n", Path::new("x.toml")).unwrap_err();
    assert!(err.to_string().contains("x.toml"), "{err}");
    assert!(!bare.extraction_configured);
}

#[test]
fn debug_never_shows_an_api_key() {
    let canary = "sk-canary-3f9a7c1e";
    let text = format!("[llm]\napi_key = \"{canary}\"\n\n[memory_agent]\napi_key = \"{canary}\"\n");
    let config = AppConfig::parse(&text, Path::new("a.toml")).unwrap();
    assert_eq!(config.llm.api_key.as_deref(), Some(canary));
    let shown = format!("{config:?} {config:#?}");
    assert!(!shown.contains(canary), "{shown}");
    assert!(shown.contains("has_api_key: true"), "{shown}");
}

#[test]
fn embedding_and_retrieval_sections() {
    let text = "[embedding]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\n\
                model = \"e5\"\nquery_style = \"input_type\"\n\n\
                [retrieval]\nmode = \"hybrid\"\ncandidates = 30\nmin_similarity = 0.75\n";
    let config = AppConfig::parse(text, Path::new("a.toml")).unwrap();
    assert_eq!(config.embedding.unwrap().model.as_deref(), Some("e5"));
    assert_eq!(config.retrieval.candidates, 30);
    assert_eq!(config.retrieval.min_similarity, Some(0.75));
    assert!(
        AppConfig::parse("", Path::new("a.toml"))
            .unwrap()
            .embedding
            .is_none()
    );
    let err = AppConfig::parse("[embedding]\napi_key = \"x\"\n", Path::new("a.toml"));
    assert!(err.is_err(), "keys never live in the file");
}

#[test]
fn unknown_keys_are_errors_naming_the_file() {
    let err = AppConfig::parse("[llm]\nbase = 1\n", Path::new("x.toml")).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("x.toml is not a valid configuration")
    );
    assert_eq!(err.exit_code(), 2);
    let err = AppConfig::parse("[memory]\nnope = 1\n", Path::new("x.toml")).unwrap_err();
    assert!(!err.to_string().contains('\n'));
}

fn error_of(text: &str, file: &str) -> String {
    AppConfig::parse(text, Path::new(file))
        .unwrap_err()
        .to_string()
}

#[test]
fn unknown_keys_name_the_nearest_valid_key() {
    assert_eq!(
        error_of("[memory.long_term]\nmax_retrun = 3\n", "x.toml"),
        "x.toml is not a valid configuration: unknown key \
         `memory.long_term.max_retrun`; did you mean `max_return`?"
    );
    let err = error_of("[lmm]\nmodel = \"m\"\n", "x.toml");
    assert!(
        err.ends_with("unknown section `[lmm]`; did you mean `[llm]`?"),
        "{err}"
    );
    let err = error_of("[retrieval]\nmode = \"hybird\"\n", "x.toml");
    assert!(
        err.ends_with("unknown value `hybird` for `retrieval.mode`; did you mean `hybrid`?"),
        "{err}"
    );
    let err = error_of("[embedding]\nmodle = \"e5\"\n", "x.toml");
    assert!(
        err.ends_with("`embedding.modle`; did you mean `model`?"),
        "{err}"
    );
    let err = error_of("[memory]\nstore = []\n", "x.toml");
    assert!(err.ends_with("did you mean `stores`?"), "{err}");
    let err = error_of("agent = []\n", "x.toml");
    assert!(
        err.ends_with("unknown key `agent`; did you mean `agents`?"),
        "{err}"
    );
    let err = error_of("[colour]\nx = 1\n", "x.toml");
    assert!(err.contains("valid keys at the top level: `llm`"), "{err}");
    // YAML: dotted paths, no TOML sections.
    let err = error_of("memory:\n  shortterm:\n    max_items: 3\n", "x.yaml");
    assert!(
        err.ends_with("unknown key `memory.shortterm`; did you mean `short_term`?"),
        "{err}"
    );
    let err = error_of("retrieval:\n  context:\n    windw: 2\n", "x.yml");
    assert!(
        err.ends_with("`retrieval.context.windw`; did you mean `window`?"),
        "{err}"
    );
}

/// The valid keys of the section at `path`, from the error a bogus key gets.
fn keys_of(path: &str) -> Vec<String> {
    let text = format!("[{path}]\nzzzzzzzzzzzz = 1\n");
    let err = error_of(&text, "x.toml");
    let list = err
        .split("valid keys in")
        .nth(1)
        .unwrap_or_else(|| panic!("{err}"));
    list.split('`')
        .skip(3)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

const DOC: &str = include_str!("../../../docs/configuration.md");

#[test]
fn every_toml_example_of_the_documentation_parses() {
    let mut count = 0;
    let mut body: Option<String> = None;
    for line in DOC.lines() {
        match body.as_mut() {
            None if line.trim() == "```toml" => body = Some(String::new()),
            None => {}
            Some(text) if line.trim() == "```" => {
                AppConfig::parse(text, Path::new("/etc/agcore/agcore.toml"))
                    .unwrap_or_else(|e| panic!("{e}\n{text}"));
                count += 1;
                body = None;
            }
            Some(text) => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    assert!(count >= 2, "{count} examples");
}

#[test]
fn every_program_key_is_documented() {
    for section in [
        "llm",
        "storage",
        "embedding",
        "retrieval",
        "retrieval.context",
        "retrieval.dense_context",
        "retrieval.group_evidence",
    ] {
        let keys = keys_of(section);
        assert!(!keys.is_empty(), "{section}");
        let heading = format!("### `[{section}]`");
        let table = DOC
            .split(&heading)
            .nth(1)
            .and_then(|rest| rest.split("\n#").next())
            .unwrap_or_else(|| panic!("no heading {heading}"));
        for key in keys {
            assert!(
                table.contains(&format!("| `{key}` |")),
                "`{section}.{key}` has no row in docs/configuration.md"
            );
        }
    }
}
