//! Integration tests: registry.
#![cfg(test)]

use agcore_prompt::{PromptError, PromptTemplate, PromptTemplateRegistry, TemplateContext};

#[test]
fn register_get_render_and_duplicates() {
    let mut registry = PromptTemplateRegistry::new();
    registry
        .register(PromptTemplate::new("weather", "{{ city }}: {{ sky }}").unwrap())
        .unwrap();
    assert!(registry.get("weather").is_some());
    let ctx = TemplateContext::from([("city", "北京"), ("sky", "晴")]);
    assert_eq!(registry.render("weather", &ctx).unwrap(), "北京: 晴");

    let err = registry
        .register(PromptTemplate::new("weather", "other").unwrap())
        .unwrap_err();
    assert!(matches!(err, PromptError::DuplicateTemplate(n) if n == "weather"));
    // The first template is kept.
    assert_eq!(
        registry.get("weather").unwrap().source(),
        "{{ city }}: {{ sky }}"
    );

    assert!(matches!(
        registry.render("nope", &ctx),
        Err(PromptError::TemplateNotFound(n)) if n == "nope"
    ));
}

#[tokio::test]
async fn load_dir_reads_template_files_by_stem() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    tokio::fs::write(p.join("system.j2"), "You are {{ role }}.\n")
        .await
        .unwrap();
    tokio::fs::write(
        p.join("summary.jinja"),
        "{% for m in msgs %}- {{ m }}\n{% endfor %}",
    )
    .await
    .unwrap();
    tokio::fs::write(p.join("notes.txt"), "纯文本 {{ x }}")
        .await
        .unwrap();
    tokio::fs::write(p.join("readme.md"), "# {{ title }}")
        .await
        .unwrap();
    tokio::fs::write(p.join("ignored.json"), "{}")
        .await
        .unwrap();
    tokio::fs::create_dir(p.join("sub.j2")).await.unwrap();

    let registry = PromptTemplateRegistry::from_dir(p).await.unwrap();
    let names: Vec<_> = registry.names().collect();
    assert_eq!(names, ["notes", "readme", "summary", "system"]);
    let out = registry
        .render("system", &TemplateContext::from([("role", "a helper")]))
        .unwrap();
    assert_eq!(out, "You are a helper.");
    let ctx = TemplateContext::new().with("msgs", vec!["a", "b"]);
    assert_eq!(registry.render("summary", &ctx).unwrap(), "- a\n- b\n");
    assert_eq!(
        registry
            .render("notes", &TemplateContext::from([("x", "好")]))
            .unwrap(),
        "纯文本 好"
    );
}

#[tokio::test]
async fn load_dir_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    tokio::fs::write(dir.path().join("a.j2"), "ok {{ x }}")
        .await
        .unwrap();
    tokio::fs::write(dir.path().join("b.j2"), "{% if %}")
        .await
        .unwrap();
    let mut registry = PromptTemplateRegistry::new();
    let err = registry.load_dir(dir.path()).await.unwrap_err();
    assert!(matches!(err, PromptError::Syntax { template, .. } if template == "b"));
    assert!(registry.is_empty());
}

#[tokio::test]
async fn load_dir_rejects_duplicate_stems() {
    let dir = tempfile::tempdir().unwrap();
    tokio::fs::write(dir.path().join("a.j2"), "one")
        .await
        .unwrap();
    tokio::fs::write(dir.path().join("a.txt"), "two")
        .await
        .unwrap();
    let err = PromptTemplateRegistry::from_dir(dir.path())
        .await
        .unwrap_err();
    assert!(matches!(err, PromptError::DuplicateTemplate(n) if n == "a"));

    let dir2 = tempfile::tempdir().unwrap();
    tokio::fs::write(dir2.path().join("x.md"), "x")
        .await
        .unwrap();
    let mut registry = PromptTemplateRegistry::new();
    registry
        .register(PromptTemplate::new("x", "mine").unwrap())
        .unwrap();
    assert!(matches!(
        registry.load_dir(dir2.path()).await,
        Err(PromptError::DuplicateTemplate(n)) if n == "x"
    ));
    assert_eq!(registry.get("x").unwrap().source(), "mine");
}

#[tokio::test]
async fn load_dir_reports_missing_directory_and_bad_utf8() {
    let err = PromptTemplateRegistry::from_dir("/definitely/not/here")
        .await
        .unwrap_err();
    assert!(matches!(err, PromptError::Io { .. }));
    assert!(err.is_recoverable());

    let dir = tempfile::tempdir().unwrap();
    tokio::fs::write(dir.path().join("bin.txt"), [0xff_u8, 0xfe, 0x00])
        .await
        .unwrap();
    let err = PromptTemplateRegistry::from_dir(dir.path())
        .await
        .unwrap_err();
    assert!(matches!(err, PromptError::Io { path, .. } if path.ends_with("bin.txt")));
}
