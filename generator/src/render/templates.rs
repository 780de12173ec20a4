//! Loading `templates/`: `*.tera` files become Tera templates; files under the folders of
//! [`VERBATIM`] are copied verbatim; anything else is refused (hand-written code is a crate
//! under `runtime/`).

use crate::diag::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The folders whose hand-written files still ship verbatim, until they too are crates under
/// `runtime/` (as the C shim's support is: `runtime/c-core`).
pub const VERBATIM: [&str; 2] = ["rust/support/", "python/support/"];

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
            let text = std::fs::read_to_string(&path).map_err(|e| Error::new(format!("{}: {e}", path.display())))?;
            if rel.ends_with(".tera") {
                templates.push((rel, text));
            } else if VERBATIM.iter().any(|v| rel.starts_with(v)) {
                support.insert(rel, text);
            } else {
                return Err(Error::new(format!(
                    "{}: not a template (`*.tera`); hand-written code belongs in a crate under runtime/",
                    path.display()
                )));
            }
        }
        tera.add_raw_templates(templates).map_err(|e| Error::new(format!("templates: {}", tera_chain(&e))))?;
        tera.autoescape_on(vec![]);
        Ok(Templates { tera, support, root: root.to_path_buf() })
    }

    /// Renders `name` (relative to `templates/`) with a serialisable context.
    pub fn render(&self, name: &str, context: &impl serde::Serialize) -> Result<String> {
        let ctx = tera::Context::from_serialize(context).map_err(|e| Error::new(format!("{name}: {}", tera_chain(&e))))?;
        self.tera.render(name, &ctx).map_err(|e| Error::new(format!("{name}: {}", tera_chain(&e))))
    }

    /// Support files under `prefix` (e.g. `rust/support/`), path relative to `prefix`.
    pub fn support_under<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.support.iter().filter_map(move |(k, v)| k.strip_prefix(prefix).map(|rel| (rel, v.as_str())))
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

/// Every string the `*.tera` files under `templates/<dir>` compare `<var>.<field>` with
/// (`p.kind == "int"`), as (variable, string): tests check each names a variant of the enum
/// the view serialises there, so a misspelt kind in a template fails a test.
#[cfg(test)]
pub(crate) fn compared_strings(dir: &str, field: &str) -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates").join(dir);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&root).expect("templates folder") {
        let path = entry.expect("template entry").path();
        if path.extension().is_none_or(|e| e != "tera") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("template text");
        let needle = format!(".{field} ");
        for (at, _) in text.match_indices(&needle) {
            let var: String =
                text[..at].chars().rev().take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '.').collect();
            let rest = &text[at + needle.len()..];
            let Some(rest) = rest.strip_prefix("== \"").or_else(|| rest.strip_prefix("!= \"")) else { continue };
            let value = rest.split('"').next().unwrap_or_default();
            out.push((var.chars().rev().collect(), value.to_string()));
        }
    }
    out
}

/// `value` is what serde writes for some variant of `E`.
#[cfg(test)]
pub(crate) fn is_variant<E: serde::de::DeserializeOwned>(value: &str) -> bool {
    serde_json::from_value::<E>(serde_json::Value::String(value.to_string())).is_ok()
}

#[cfg(test)]
mod tests {
    use super::Templates;

    #[test]
    fn a_file_that_is_no_template_is_refused_outside_the_verbatim_folders() {
        let dir = std::env::temp_dir().join(format!("cudagen-templates-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("c")).unwrap();
        std::fs::create_dir_all(dir.join("rust/support")).unwrap();
        std::fs::write(dir.join("c/lib.rs.tera"), "{{ x }}").unwrap();
        std::fs::write(dir.join("rust/support/util.rs"), "// verbatim").unwrap();
        let t = Templates::load(&dir).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(t.support_under("rust/support/").collect::<Vec<_>>(), [("util.rs", "// verbatim")]);
        std::fs::write(dir.join("c/guard.rs"), "// hand-written").unwrap();
        let e = Templates::load(&dir).err().expect("c/guard.rs is refused").to_string();
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(e.contains("guard.rs") && e.contains("runtime/"), "{e}");
    }
}
