use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};

use agcore_types::ToolDefinition;

use crate::validate::ArgumentValidator;
use crate::{InvokeOptions, PermissionChecker, Tool, ToolError};

pub(crate) struct Entry {
    pub(crate) tool: Arc<dyn Tool>,
    pub(crate) validator: ArgumentValidator,
}

#[derive(Default)]
struct Tools {
    order: Vec<String>,
    by_name: HashMap<String, Arc<Entry>>,
}

/// The tools an agent may call: registered by name, their argument schemas
/// compiled once, calls validated, permission-checked, timed out and
/// cancellable.
///
/// Registration takes `&self` (the registry is shared as
/// `Arc<ToolRegistry>`); the internal lock is never held across an `.await`.
/// Definitions are listed in registration order.
///
/// Every call goes through the same steps, each inside a `tool_call` tracing
/// span with the fields `tool`, `latency_ms` and `outcome`
/// (`ok` or the error kind):
/// 1. look the tool up ([`ToolError::NotFound`]);
/// 2. a permission rule that denies the tool refuses the call
///    ([`ToolError::PermissionDenied`]);
/// 3. validate the arguments against the tool's JSON Schema
///    ([`ToolError::InvalidArguments`] with the JSON Pointer of the failing
///    value);
/// 4. resolve an `ask` decision with the [`crate::Approver`];
/// 5. execute, bounded by the timeout ([`ToolError::Timeout`]) and the
///    context's cancellation token ([`ToolError::Cancelled`]).
///
/// It implements [`agcore_types::ToolExecutor`], so `agcore-llm`'s tool loop
/// runs registry tools (see [`ToolRegistry::executor`] to bind a context).
///
/// # Examples
///
/// ```
/// use agcore_tools::{FnTool, ToolContext, ToolError, ToolRegistry};
/// use schemars::JsonSchema;
/// use serde::Deserialize;
/// use serde_json::json;
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Args {
///     city: String,
/// }
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), ToolError> {
/// let registry = ToolRegistry::new();
/// registry.register(std::sync::Arc::new(FnTool::new(
///     "get_weather",
///     "Current weather of a city.",
///     |a: Args, _ctx: ToolContext| async move { Ok::<_, ToolError>(json!({"city": a.city, "temp_c": 22})) },
/// )))?;
///
/// let ctx = ToolContext::new();
/// let out = registry.invoke("get_weather", json!({"city": "北京"}), &ctx).await?;
/// assert_eq!(out["temp_c"], 22);
///
/// let err = registry.invoke("get_weather", json!({"city": 1}), &ctx).await.unwrap_err();
/// assert!(matches!(err, ToolError::InvalidArguments { ref path, .. } if path == "/city"));
/// # Ok(())
/// # }
/// ```
pub struct ToolRegistry {
    tools: RwLock<Tools>,
    permissions: Option<PermissionChecker>,
    options: InvokeOptions,
}

impl Default for ToolRegistry {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .field("permissions", &self.permissions)
            .field("options", &self.options)
            .finish()
    }
}

impl ToolRegistry {
    /// An empty registry with default [`InvokeOptions`] and no permission checker.
    pub fn new() -> Self {
        Self {
            tools: RwLock::new(Tools::default()),
            permissions: None,
            options: InvokeOptions::default(),
        }
    }

    /// Consults `checker` before every call.
    pub fn with_permissions(mut self, checker: PermissionChecker) -> Self {
        self.permissions = Some(checker);
        self
    }

    /// Uses `options` for [`Self::invoke`], [`Self::invoke_all`] and the
    /// [`agcore_types::ToolExecutor`] implementation.
    pub fn with_options(mut self, options: InvokeOptions) -> Self {
        self.options = options;
        self
    }

    /// The permission checker, if any.
    pub fn permissions(&self) -> Option<&PermissionChecker> {
        self.permissions.as_ref()
    }

    /// The default invocation options.
    pub fn options(&self) -> &InvokeOptions {
        &self.options
    }

    /// Adds `tool`, compiling its parameter schema.
    ///
    /// # Errors
    /// [`ToolError::InvalidName`] for a name the OpenAI API rejects,
    /// [`ToolError::InvalidSchema`] when the schema does not compile,
    /// [`ToolError::AlreadyRegistered`] when the name is taken (the
    /// registered tool is kept).
    pub fn register(&self, tool: Arc<dyn Tool>) -> Result<(), ToolError> {
        let name = tool.name().to_owned();
        if !is_valid_name(&name) {
            return Err(ToolError::InvalidName(name));
        }
        let validator = ArgumentValidator::compile(&name, &tool.parameters())?;
        let mut tools = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        if tools.by_name.contains_key(&name) {
            return Err(ToolError::AlreadyRegistered(name));
        }
        tools.order.push(name.clone());
        tools
            .by_name
            .insert(name, Arc::new(Entry { tool, validator }));
        Ok(())
    }

    /// Removes the tool called `name` and returns it.
    pub fn unregister(&self, name: &str) -> Option<Arc<dyn Tool>> {
        let mut tools = self.tools.write().unwrap_or_else(PoisonError::into_inner);
        let entry = tools.by_name.remove(name)?;
        tools.order.retain(|n| n != name);
        Some(Arc::clone(&entry.tool))
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<dyn Tool>> {
        self.entry(name).map(|e| Arc::clone(&e.tool))
    }

    /// Whether a tool called `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.entry(name).is_some()
    }

    /// The tool names, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .order
            .clone()
    }

    /// Number of tools.
    pub fn len(&self) -> usize {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .order
            .len()
    }

    /// Whether no tool is registered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The definitions sent to the model, in registration order.
    pub fn definitions(&self) -> Vec<ToolDefinition> {
        let tools = self.tools.read().unwrap_or_else(PoisonError::into_inner);
        tools
            .order
            .iter()
            .filter_map(|n| tools.by_name.get(n))
            .map(|e| e.tool.definition())
            .collect()
    }

    pub(crate) fn entry(&self, name: &str) -> Option<Arc<Entry>> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .by_name
            .get(name)
            .cloned()
    }
}

/// Whether `name` matches `^[a-zA-Z0-9_-]{1,64}$`.
pub(crate) fn is_valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_openai_rule() {
        assert!(is_valid_name("get_weather"));
        assert!(is_valid_name("github__create-issue"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("has space"));
        assert!(!is_valid_name("dot.name"));
        assert!(!is_valid_name("天气"));
        assert!(!is_valid_name(&"a".repeat(65)));
    }
}
