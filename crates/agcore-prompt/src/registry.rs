use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::{PromptError, PromptTemplate, TemplateContext};

/// File extensions [`PromptTemplateRegistry::load_dir`] reads as templates.
pub const TEMPLATE_EXTENSIONS: [&str; 4] = ["j2", "jinja", "txt", "md"];

/// Named prompt templates: register them in code or load a directory of
/// template files, then look them up or render them by name.
///
/// # Examples
///
/// ```
/// use agcore_prompt::{PromptError, PromptTemplate, PromptTemplateRegistry, TemplateContext};
///
/// let mut registry = PromptTemplateRegistry::new();
/// registry.register(PromptTemplate::new("greet", "Hello, {{ name }}!")?)?;
/// let text = registry.render("greet", &TemplateContext::from([("name", "Ada")]))?;
/// assert_eq!(text, "Hello, Ada!");
/// # Ok::<(), PromptError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct PromptTemplateRegistry {
    templates: BTreeMap<String, PromptTemplate>,
}

impl PromptTemplateRegistry {
    /// An empty registry.
    pub fn new() -> Self {
        Self::default()
    }

    /// A registry holding the templates of `dir` (see [`Self::load_dir`]).
    ///
    /// # Errors
    /// As [`Self::load_dir`].
    pub async fn from_dir(dir: impl AsRef<Path>) -> Result<Self, PromptError> {
        let mut registry = Self::new();
        registry.load_dir(dir).await?;
        Ok(registry)
    }

    /// Adds `template` under its name.
    ///
    /// # Errors
    /// [`PromptError::DuplicateTemplate`] when the name is taken; the
    /// registered template is kept.
    pub fn register(&mut self, template: PromptTemplate) -> Result<(), PromptError> {
        if self.templates.contains_key(template.name()) {
            return Err(PromptError::DuplicateTemplate(template.name().to_owned()));
        }
        let template = crate::builtin::declare_untrusted(template);
        self.templates.insert(template.name().to_owned(), template);
        Ok(())
    }

    /// Adds `template`, replacing any template of the same name; returns the
    /// replaced one.
    pub fn replace(&mut self, template: PromptTemplate) -> Option<PromptTemplate> {
        let template = crate::builtin::declare_untrusted(template);
        self.templates.insert(template.name().to_owned(), template)
    }

    /// Removes the template called `name` and returns it.
    pub fn remove(&mut self, name: &str) -> Option<PromptTemplate> {
        self.templates.remove(name)
    }

    /// The template called `name`.
    pub fn get(&self, name: &str) -> Option<&PromptTemplate> {
        self.templates.get(name)
    }

    /// Whether a template called `name` is registered.
    pub fn contains(&self, name: &str) -> bool {
        self.templates.contains_key(name)
    }

    /// The registered names, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.templates.keys().map(String::as_str)
    }

    /// Number of templates.
    pub fn len(&self) -> usize {
        self.templates.len()
    }

    /// Whether no template is registered.
    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    /// Renders the template called `name` with `ctx`.
    ///
    /// # Errors
    /// [`PromptError::TemplateNotFound`], or any error of
    /// [`PromptTemplate::render`].
    pub fn render(&self, name: &str, ctx: &TemplateContext) -> Result<String, PromptError> {
        self.get(name)
            .ok_or_else(|| PromptError::TemplateNotFound(name.to_owned()))?
            .render(ctx)
    }

    /// Loads every template file directly inside `dir` (not in
    /// subdirectories): files ending in `.j2`, `.jinja`, `.txt` or `.md`
    /// ([`TEMPLATE_EXTENSIONS`]), each registered under its file stem
    /// (`system.j2` → `system`, `summary.md.j2` → `summary.md`). Other files
    /// are ignored. Returns the number of templates added.
    ///
    /// Loading is all or nothing: when any file fails, nothing is added.
    ///
    /// # Errors
    /// - [`PromptError::Io`] when the directory or a file cannot be read, or a
    ///   file is not UTF-8;
    /// - [`PromptError::Syntax`] naming the first file that does not parse;
    /// - [`PromptError::DuplicateTemplate`] when two files share a stem or a
    ///   stem is already registered.
    pub async fn load_dir(&mut self, dir: impl AsRef<Path>) -> Result<usize, PromptError> {
        let dir = dir.as_ref();
        let files = template_files(dir).await?;
        let mut loaded: BTreeMap<String, PromptTemplate> = BTreeMap::new();
        for (name, path) in files {
            if self.templates.contains_key(&name) || loaded.contains_key(&name) {
                return Err(PromptError::DuplicateTemplate(name));
            }
            let source = tokio::fs::read_to_string(&path)
                .await
                .map_err(|source| PromptError::Io { path, source })?;
            let template =
                crate::builtin::declare_untrusted(PromptTemplate::new(name.clone(), source)?);
            loaded.insert(name, template);
        }
        let count = loaded.len();
        self.templates.extend(loaded);
        Ok(count)
    }
}

/// `(stem, path)` of the template files in `dir`, sorted by file name.
async fn template_files(dir: &Path) -> Result<Vec<(String, PathBuf)>, PromptError> {
    let io_err = |source| PromptError::Io {
        path: dir.to_path_buf(),
        source,
    };
    let mut entries = tokio::fs::read_dir(dir).await.map_err(io_err)?;
    let mut files = Vec::new();
    while let Some(entry) = entries.next_entry().await.map_err(io_err)? {
        let path = entry.path();
        let file_type = tokio::fs::metadata(&path)
            .await
            .map_err(|source| PromptError::Io {
                path: path.clone(),
                source,
            })?;
        if !file_type.is_file() {
            continue;
        }
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if !TEMPLATE_EXTENSIONS.contains(&ext) {
            continue;
        }
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if stem.is_empty() || stem.starts_with('.') {
            continue;
        }
        files.push((stem.to_owned(), path));
    }
    files.sort_by(|a, b| a.1.cmp(&b.1));
    Ok(files)
}
