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
use serde::Serialize;
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

/// Where a generated crate finds the hand-written runtime crates (`runtime/<dir>`) in this
/// repository: from its own folder, `generated/<surface>/`. A writer that puts the crates
/// elsewhere points this prefix at the runtime's folder there (`cudagen_cli::output`).
pub const RUNTIME_PATH: &str = "../../runtime";

/// A generated crate's dependency on the runtime crate in `runtime/<dir>`: the path in the
/// repository and, for a published crate, the one version it was generated with (the generator
/// and the runtime crates are released together).
#[derive(Debug, Serialize)]
pub(crate) struct RuntimeDep {
    pub version: String,
    pub path: String,
}

pub(crate) fn runtime_dep(dir: &str) -> RuntimeDep {
    RuntimeDep { version: format!("={}", env!("CARGO_PKG_VERSION")), path: format!("{RUNTIME_PATH}/{dir}") }
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
