//! Per-surface view models and Tera templates.
//!
//! Each surface module reads the finished IR, builds plain view models and renders the root
//! templates of `templates/<surface>/`. Hand-written support files under
//! `templates/<surface>/support/` are copied verbatim. Every surface reports which functions it
//! emitted, for the coverage report.

pub mod c;
pub(crate) mod inert;
pub mod python;
pub mod rust;
pub(crate) mod rust_type;
mod templates;

pub use templates::Templates;

use crate::coverage::Coverage;
use crate::diag::Result;
use crate::ir::Api;
use std::collections::BTreeMap;
use std::path::Path;

/// Output files, keyed by path relative to `generated/`.
pub type Files = BTreeMap<String, String>;

/// Everything a render produces.
#[derive(Debug, Default)]
pub struct Output {
    pub files: Files,
    pub coverage: Coverage,
}

/// Copies the verbatim support files under `templates/<from>` to `<to>` in the output, except
/// those `skip` names; an empty folder is an error naming what is missing.
pub(crate) fn copy_support(
    templates: &Templates,
    out: &mut Output,
    from: &str,
    to: &str,
    skip: impl Fn(&str) -> bool,
) -> Result<()> {
    let mut copied = 0;
    for (rel, text) in templates.support_under(from) {
        if !skip(rel) {
            out.files.insert(format!("{to}{rel}"), text.to_string());
            copied += 1;
        }
    }
    if copied == 0 {
        return Err(crate::diag::Error::new(format!("templates/{from} is empty: the hand-written support modules are missing")));
    }
    Ok(())
}

/// Renders every surface.
pub fn render_all(api: &Api, templates_dir: &Path) -> Result<Output> {
    let templates = Templates::load(templates_dir)?;
    let mut out = Output::default();
    for library in &api.libraries {
        out.coverage.add_library(library);
    }
    rust::render(api, &templates, &mut out)?;
    python::render(api, &templates, &mut out)?;
    c::render(api, &templates, &mut out)?;
    Ok(out)
}
