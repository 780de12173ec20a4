//! Loading `templates/`: `*.tera` files become Tera templates, `support/` files are verbatim.

use crate::diag::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub struct Templates {
    pub tera: tera::Tera,
    /// Verbatim support files: path relative to `templates/` -> contents.
    pub support: BTreeMap<String, String>,
    pub root: PathBuf,
}

impl Templates {
    pub fn load(root: &Path) -> Result<Self> {
        let mut tera = tera::Tera::default();
        let mut support = BTreeMap::new();
        let mut files = Vec::new();
        walk(root, &mut files).map_err(|e| Error::new(format!("{}: {e}", root.display())))?;
        files.sort();
        let mut templates = Vec::new();
        for path in files {
            let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(&path)
                .map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
            if rel.ends_with(".tera") {
                templates.push((rel, text));
            } else {
                support.insert(rel, text);
            }
        }
        tera.add_raw_templates(templates).map_err(|e| Error::new(format!("templates: {}", tera_chain(&e))))?;
        tera.autoescape_on(vec![]);
        Ok(Templates { tera, support, root: root.to_path_buf() })
    }

    /// Renders `name` (relative to `templates/`) with a serialisable context.
    pub fn render(&self, name: &str, context: &impl serde::Serialize) -> Result<String> {
        let ctx = tera::Context::from_serialize(context)
            .map_err(|e| Error::new(format!("{name}: {}", tera_chain(&e))))?;
        self.tera.render(name, &ctx).map_err(|e| Error::new(format!("{name}: {}", tera_chain(&e))))
    }

    /// Support files under `prefix` (e.g. `rust/support/`), path relative to `prefix`.
    pub fn support_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.support
            .iter()
            .filter_map(move |(k, v)| k.strip_prefix(prefix).map(|rel| (rel, v.as_str())))
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// A Tera error with its causes (Tera hides the useful part in `source()`).
fn tera_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(": ");
        s.push_str(&c.to_string());
        cur = c.source();
    }
    s
}
