//! Integration tests: template.
#![cfg(test)]

use agcore_prompt::{PromptError, PromptTemplate, TemplateContext};
use serde::Serialize;
use serde_json::json;

fn render(source: &str, ctx: &TemplateContext) -> Result<String, PromptError> {
    PromptTemplate::new("t", source).unwrap().render(ctx)
}

#[test]
fn variables_are_interpolated() {
    let ctx = TemplateContext::from([
        ("location", "北京"),
        ("condition", "晴"),
        ("temperature", "25°C"),
    ]);
    let out = render(
        "今日{{ location }}天气:{{ condition }},温度{{ temperature }}",
        &ctx,
    )
    .unwrap();
    assert_eq!(out, "今日北京天气:晴,温度25°C");
}

#[test]
fn nested_attributes_and_numbers() {
    #[derive(Serialize)]
    struct User {
        name: &'static str,
        age: u32,
    }
    let mut ctx = TemplateContext::new();
    ctx.insert(
        "user",
        &User {
            name: "Ada",
            age: 36,
        },
    )
    .unwrap();
    assert_eq!(
        render("{{ user.name }} is {{ user.age + 1 }} next year", &ctx).unwrap(),
        "Ada is 37 next year"
    );
}

#[test]
fn conditionals_pick_the_right_branch() {
    let src = "{% if premium %}VIP{% elif trial is defined %}trial{% else %}basic{% endif %}";
    assert_eq!(
        render(src, &TemplateContext::new().with("premium", true)).unwrap(),
        "VIP"
    );
    let ctx = TemplateContext::new()
        .with("premium", false)
        .with("trial", 1);
    assert_eq!(render(src, &ctx).unwrap(), "trial");
    assert_eq!(
        render(src, &TemplateContext::new().with("premium", false)).unwrap(),
        "basic"
    );
}

#[test]
fn loops_with_loop_variables_and_block_trimming() {
    let src = "Tools:\n{% for t in tools %}\n{{ loop.index }}. {{ t.name }}: {{ t.desc }}\n{% endfor %}\nEnd";
    let ctx = TemplateContext::new().with(
        "tools",
        json!([{"name": "search", "desc": "web search"}, {"name": "calc", "desc": "math"}]),
    );
    assert_eq!(
        render(src, &ctx).unwrap(),
        "Tools:\n1. search: web search\n2. calc: math\nEnd"
    );
}

#[test]
fn filters_apply() {
    let ctx = TemplateContext::new()
        .with("name", "  ada lovelace ")
        .with("items", vec!["a", "b", "c"])
        .with("obj", json!({"k": "中文"}));
    let out = render(
        "{{ name | trim | title }}|{{ items | join('-') | upper }}|{{ items | length }}|{{ missing | default('none') }}|{{ obj | tojson }}",
        &ctx,
    )
    .unwrap();
    assert_eq!(out, r#"Ada Lovelace|A-B-C|3|none|{"k": "中文"}"#);
}

#[test]
fn missing_variable_is_an_error_naming_it() {
    let err = render("Hello {{ name }}!", &TemplateContext::new()).unwrap_err();
    assert!(
        matches!(&err, PromptError::MissingVariable(n) if n == "name"),
        "{err:?}"
    );
    assert!(err.is_recoverable());
}

#[test]
fn missing_variable_in_condition_loop_and_filter() {
    let ctx = TemplateContext::new().with("user", json!({"age": 3}));
    let cases = [
        ("{% if flag %}x{% endif %}", "flag"),
        ("{% for i in items %}{{ i }}{% endfor %}", "items"),
        ("{{ city | upper }}", "city"),
        ("{{ user.name }}", "user.name"),
    ];
    for (src, name) in cases {
        match render(src, &ctx) {
            Err(PromptError::MissingVariable(n)) => assert_eq!(n, name, "{src}"),
            other => panic!("{src}: expected MissingVariable({name}), got {other:?}"),
        }
    }
}

#[test]
fn missing_variable_inside_macro_is_reported() {
    let src = "{% macro greet() %}Hi {{ who }}{% endmacro %}{{ greet() }}";
    let err = render(src, &TemplateContext::new()).unwrap_err();
    assert!(
        matches!(&err, PromptError::MissingVariable(n) if n == "who"),
        "{err:?}"
    );
}

#[test]
fn chinese_variable_names_work() {
    let ctx = TemplateContext::from([("城市", "上海")]);
    assert_eq!(render("城市:{{ 城市 }}", &ctx).unwrap(), "城市:上海");
}

#[test]
fn unknown_filter_is_a_render_error() {
    let err = render(
        "{{ x | no_such_filter }}",
        &TemplateContext::new().with("x", 1),
    )
    .unwrap_err();
    assert!(
        matches!(
            &err,
            PromptError::Syntax { .. } | PromptError::Render { .. }
        ),
        "{err:?}"
    );
    assert!(!err.is_recoverable());
}

#[test]
fn syntax_errors_name_the_template() {
    let err = PromptTemplate::new("broken", "{{ unclosed").unwrap_err();
    match err {
        PromptError::Syntax { template, message } => {
            assert_eq!(template, "broken");
            assert!(!message.is_empty());
        }
        other => panic!("expected Syntax, got {other:?}"),
    }
}
