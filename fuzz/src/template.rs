//! Template rendering with untrusted values: a value is always text, never
//! template syntax, and comes out exactly as it went in.

use agcore_prompt::{PromptTemplate, TemplateContext};
use serde_json::json;

use crate::input::parts;

fn render(source: &str, ctx: &TemplateContext) -> String {
    PromptTemplate::new("fuzz", source)
        .expect("a fixed template parses")
        .render(ctx)
        .expect("a fixed template renders")
}

/// The input is cut at NUL into the values `a` and `b`, rendered by fixed
/// templates; the whole input is also parsed as a template source (parsing
/// must not panic; sources are not rendered: loops could run for long).
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let values = parts(&text, '\0', 2);
    let a = values.first().copied().unwrap_or_default();
    let b = values.get(1).copied().unwrap_or_default();
    let ctx = TemplateContext::new()
        .with("a", a)
        .with("b", b)
        .with("items", json!([a, b]))
        .with("user", json!({ "name": a, "bio": b }));

    assert_eq!(
        render("A{{ a }}B{{ b }}C", &ctx),
        format!("A{a}B{b}C"),
        "interpolation changed a value"
    );
    assert_eq!(
        render("{% for x in items %}{{ x }}|{% endfor %}", &ctx),
        format!("{a}|{b}|")
    );
    assert_eq!(
        render("{{ user.name }}\n{{ user.bio }}", &ctx),
        format!("{a}\n{b}")
    );
    let conditional = render("{% if a %}[{{ a }}]{% endif %}", &ctx);
    let expected = if a.is_empty() {
        String::new()
    } else {
        format!("[{a}]")
    };
    assert_eq!(conditional, expected);
    let as_json = render("{{ b | tojson }}", &ctx);
    let back: serde_json::Value = serde_json::from_str(&as_json).expect("tojson is JSON");
    assert_eq!(back, json!(b), "tojson round trip");

    if let Ok(template) = PromptTemplate::new("source", text.as_ref()) {
        let _ = template.variables();
        assert_eq!(template.source(), text);
    }
}
