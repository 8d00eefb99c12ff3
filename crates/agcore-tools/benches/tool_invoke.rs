//! Cost of one validated tool call: `ToolRegistry::invoke` (schema compiled
//! once at registration) beside compiling the schema on every call (the
//! baseline, first in the group). Both validate the same arguments and run
//! the same typed tool.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use std::hint::black_box;

use agcore_tools::{ToolContext, ToolError, ToolRegistry, TypedTool};
use async_trait::async_trait;
use criterion::{Criterion, criterion_group, criterion_main};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct SearchArgs {
    /// Query text.
    query: String,
    /// Result count.
    limit: Option<u32>,
    /// Filters.
    tags: Vec<String>,
    /// Sort order.
    order: Order,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Order {
    Relevance,
    Recency,
}

struct Search;

#[async_trait]
impl TypedTool for Search {
    type Args = SearchArgs;
    type Output = usize;
    fn name(&self) -> &str {
        "search"
    }
    fn description(&self) -> &str {
        "Searches."
    }
    async fn call(&self, args: SearchArgs, _ctx: &ToolContext) -> Result<usize, ToolError> {
        Ok(args.query.len() + args.tags.len())
    }
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let tool = Search.into_tool();
    let registry = ToolRegistry::new();
    registry.register(tool.clone()).unwrap();
    let ctx = ToolContext::new();
    let args =
        json!({"query": "北京 天气", "limit": 5, "tags": ["a", "b", "c"], "order": "Recency"});
    let schema = tool.parameters();

    let mut group = c.benchmark_group("validated_call");
    group.bench_function("compile_schema_per_call", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let validator = jsonschema::validator_for(&schema).unwrap();
                assert!(validator.is_valid(&args));
                black_box(tool.execute(args.clone(), &ctx).await.unwrap())
            })
        });
    });
    group.bench_function("registry_invoke", |b| {
        b.iter(|| {
            runtime.block_on(async {
                black_box(registry.invoke("search", args.clone(), &ctx).await.unwrap())
            })
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
