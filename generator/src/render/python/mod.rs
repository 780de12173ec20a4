//! The python surface: crate `cudagen-python` (PyO3, maturin) under `generated/python/`,
//! building the package `cudagen` (`cudagen.driver`, `cudagen.nvrtc`, alias `cudagen.cuda`).
//!
//! Files: `Cargo.toml`, `pyproject.toml`, `src/lib.rs`, `src/<module>.rs` (one `#[pyfunction]`
//! per C function + the handle classes), `python/cudagen/<module>.py` (compact enum and record
//! tables, built into `IntEnum`s and `ctypes` structures on first access by `cudagen._classes`) and
//! `<module>.pyi` stubs, `_<module>_docs.py` (the classes' doc text, read on first `__doc__`
//! access). `templates/python/support/rs/*` is copied to `src/`,
//! `templates/python/support/py/**` to `python/`. View models: `functions` (what
//! each parameter's Python kind, an IR fact from `passes::python`, prints, with its `ParamKind` links), `lifetimes` (the
//! Rust expressions that keep and release a Python callable, per `passes::callbacks`), `types`
//! (enums, records, handles, constants).

mod functions;
mod lifetimes;
mod types;
mod wrapper;

use super::{Output, Templates};
use crate::diag::{Error, Result};
use crate::ir::{Api, Library};
use crate::profile::PythonConvention;
use serde::Serialize;

const SURFACE: &str = "python";

#[derive(Serialize)]
struct CrateView {
    cuda_version: String,
    modules: Vec<String>,
    /// The static archives of its libraries, whose features the crate forwards to the Rust crate
    /// and its wheels turn on (`pyproject.toml`).
    static_links: Vec<&'static crate::profile::StaticLink>,
    /// NVIDIA's distributions carrying those archives for this release (`name==12.9.*`): build
    /// requirements, so that a build from the sdist finds them.
    build_requires: Vec<String>,
    /// One extra per library loaded from a pip distribution of NVIDIA's (not linked in).
    extras: Vec<Extra>,
    /// The public module of each library (`driver`: `cudagen.driver`), for the descriptions.
    libraries: Vec<String>,
}

/// `cudagen[nvrtc]`: the Python module and the requirement it pulls (`nvidia-cuda-nvrtc-cu12==12.*`).
#[derive(Serialize)]
struct Extra {
    name: String,
    requirement: String,
}

/// The extras of [`CrateView`]: each library with a pip distribution for the headers' major and
/// no static archive in the wheel.
fn extras(api: &Api) -> Vec<Extra> {
    let major = api.cuda_major();
    let loaded = api.libraries.iter().map(|l| l.profile()).filter(|p| p.loader.static_link.is_none());
    loaded
        .filter_map(|p| {
            let pip = p.loader.pip_for(major)?;
            Some(Extra { name: p.module.clone(), requirement: format!("{pip}=={}.*", major?) })
        })
        .collect()
}

#[derive(Serialize)]
struct ModuleView {
    module: String,
    /// The Rust crate's module of the library (`nvjitlink` for the Python module `_nvjitlink`).
    library: String,
    /// `cudagen.driver`.
    qualname: String,
    status: Option<String>,
    /// Status code the sys layer returns when the library could not be loaded.
    library_missing: i64,
    functions: Vec<functions::FnView>,
    enums: Vec<types::EnumView>,
    records: Vec<types::RecordView>,
    handles: Vec<types::HandleView>,
    consts: Vec<types::ConstView>,
    aliases: Vec<(String, String)>,
    typedef_classes: Vec<types::TypedefClassView>,
    record_class_names: Vec<(String, String)>,
    /// cuda.bindings major whose record printing the module follows (12 or 13).
    bindings_major: u32,
    /// Classes registered with `cuda.bindings.utils.get_cuda_native_handle` (`cudagen/__init__.py`).
    native_handles: Vec<String>,
    /// The profile's `python_helpers` module, whose public names the module re-exports.
    helpers: Option<&'static str>,
    /// Those names: the helper module's `__all__` (for the stub's `__all__`).
    helper_names: Vec<String>,
    /// Record -> its read-only fields (`Field::read_only`), by Python name.
    read_only: Vec<(String, Vec<String>)>,
    /// The module has `sizeof` (`PythonConvention::sizeof_helper`).
    sizeof: bool,
    /// How the module takes caller memory (`conv::Memory`, from the library's
    /// [`PythonConvention`]).
    memory: MemoryView,
}

/// The facts of the library's [`PythonConvention`] the support code's conversions read.
#[derive(Serialize)]
struct MemoryView {
    /// An int address is a C `intptr_t` ([`crate::profile::AddressInts::IntPtr`]).
    intptr: bool,
    /// `bytes` are written as an output buffer ([`PythonConvention::read_only_output`]).
    bytes_out: bool,
}

impl MemoryView {
    fn of(python: &PythonConvention) -> Self {
        MemoryView { intptr: python.address_ints() == crate::profile::AddressInts::IntPtr, bytes_out: python.read_only_output() }
    }
}

/// `cudagen/_<module>_docs.py`: the doc text of the module's classes, read on first use.
#[derive(Serialize)]
struct DocsModuleView {
    qualname: String,
    docs: types::DocsView,
}

pub fn render(api: &Api, templates: &Templates, out: &mut Output) -> Result<()> {
    let mut modules = Vec::new();
    let bindings_major = crate::passes::naming::python_bindings_major(crate::passes::header_cuda_version(api));
    for lib in &api.libraries {
        modules.push(render_module(api, lib, bindings_major, templates, out)?);
    }
    let static_links: Vec<_> = api.libraries.iter().filter_map(|l| l.profile().loader.static_link.as_ref()).collect();
    let build_requires = static_links
        .iter()
        .flat_map(|l| l.wheels.iter().filter(|(major, _)| Some(*major) == api.cuda_major()))
        .map(|(_, name)| format!("{name}=={}.*", api.cuda_version))
        .collect();
    let libraries = api.libraries.iter().map(|l| l.profile().module.clone()).collect();
    let view = CrateView {
        cuda_version: api.cuda_version.clone(),
        modules,
        static_links,
        build_requires,
        extras: extras(api),
        libraries,
    };
    out.files.insert("python/Cargo.toml".into(), templates.render("python/Cargo.toml.tera", &view)?);
    out.files.insert("python/pyproject.toml".into(), templates.render("python/pyproject.toml.tera", &view)?);
    out.files.insert("python/README.md".into(), templates.render("python/README.md.tera", &view)?);
    let version =
        format!("\"\"\"The package's version (the CUDA release it binds).\"\"\"\n\n__version__ = \"{}.0\"\n", api.cuda_version);
    out.files.insert("python/python/cudagen/_version.py".into(), version);
    out.files.insert("python/src/lib.rs".into(), templates.render("python/lib.rs.tera", &view)?);
    out.files.insert("python/python/cudagen/_cudagen.pyi".into(), templates.render("python/cudagen.pyi.tera", &view)?);
    let mut n = 0;
    for (rel, text) in templates.support_under("python/support/rs/") {
        out.files.insert(format!("python/src/{rel}"), text.to_string());
        n += 1;
    }
    for (rel, text) in templates.support_under("python/support/py/") {
        out.files.insert(format!("python/python/{rel}"), text.to_string());
        n += 1;
    }
    if n == 0 {
        return Err(Error::new("templates/python/support/ is empty"));
    }
    Ok(())
}

/// The names hand-written helper module `module` exports: the quoted names of its one-line
/// `__all__ = [...]`.
fn helper_names(templates: &Templates, module: &str) -> Result<Vec<String>> {
    let file = format!("{module}.py");
    let text = templates.support_under("python/support/py/cudagen/").find(|(rel, _)| *rel == file).map(|(_, t)| t);
    let line = text.and_then(|t| t.lines().find_map(|l| l.strip_prefix("__all__ = [")));
    let line =
        line.ok_or_else(|| Error::new(format!("templates/python/support/py/cudagen/{file}: no one-line `__all__ = [...]`")))?;
    Ok(line.trim_end_matches(']').split(',').map(|n| n.trim().trim_matches('"').to_string()).filter(|n| !n.is_empty()).collect())
}

/// The four files of one library's module; returns the module's name.
/// A library whose cuda.bindings module raises keeps the tuple functions in `_<module>` and gets
/// a public module of wrappers (`wrapper`).
fn render_module(api: &Api, lib: &Library, bindings_major: u32, templates: &Templates, out: &mut Output) -> Result<String> {
    let profile = lib.profile();
    let public = profile.module.as_str();
    let m = profile.python_tuple_module();
    let qualname = format!("cudagen.{m}");
    let mut handles = types::handles(lib);
    types::mark_shared(api, lib, &mut handles);
    let mut fns = Vec::new();
    for f in &lib.functions {
        match functions::view(lib, f, &handles) {
            Ok(v) => {
                out.coverage.emitted(lib.kind, SURFACE, &f.name);
                fns.push(v);
            }
            Err(why) => out.coverage.skipped(lib.kind, SURFACE, &f.name, why),
        }
    }
    let typedef_classes = types::typedef_classes(lib, &handles);
    let records: Vec<types::RecordView> =
        lib.records.iter().filter(|r| r.complete).map(|r| types::record_view(lib, r, &handles)).collect();
    let docs = DocsModuleView { qualname: qualname.clone(), docs: types::docs_view(lib, &records, &typedef_classes) };
    let native_handles = types::native_handles(lib, &handles, &typedef_classes);
    let view = ModuleView {
        module: m.clone(),
        library: public.to_string(),
        qualname,
        status: lib.status_enum.clone(),
        library_missing: lib.status_codes.map_or(0, |c| c.library_missing),
        functions: fns,
        enums: lib.enums.iter().map(types::enum_view).collect(),
        records,
        handles,
        typedef_classes,
        record_class_names: types::record_class_names(lib),
        consts: types::consts(lib),
        aliases: types::aliases(lib),
        bindings_major,
        native_handles,
        helpers: profile.python_helpers.as_deref(),
        helper_names: profile.python_helpers.as_deref().map(|h| helper_names(templates, h)).transpose()?.unwrap_or_default(),
        read_only: types::read_only_fields(lib),
        sizeof: profile.python.sizeof_helper(),
        memory: MemoryView::of(&profile.python),
    };
    if let PythonConvention::Exceptions { error_class } = &profile.python {
        let w = wrapper::view(lib, public, error_class, &view.functions);
        out.files.insert(format!("python/python/cudagen/{public}.py"), templates.render("python/module_exc.py.tera", &w)?);
        out.files.insert(format!("python/python/cudagen/{public}.pyi"), templates.render("python/module_exc.pyi.tera", &w)?);
    }
    out.files.insert(format!("python/src/{m}.rs"), templates.render("python/module.rs.tera", &view)?);
    out.files.insert(format!("python/python/cudagen/{m}.py"), templates.render("python/module.py.tera", &view)?);
    out.files.insert(format!("python/python/cudagen/{m}.pyi"), templates.render("python/module.pyi.tera", &view)?);
    out.files.insert(format!("python/python/cudagen/_{m}_docs.py"), templates.render("python/module_docs.py.tera", &docs)?);
    Ok(m)
}

/// The conversion `passes::python` chose for `p`.
fn conv(p: &crate::ir::Param) -> std::result::Result<crate::ir::PyConv, String> {
    p.python.ok_or_else(|| format!("{}: no Python conversion (passes::python did not run)", p.name))
}

/// The Rust variable of a Python argument (PyO3 strips `r#` for the Python name); `py` is the
/// GIL token every generated function takes.
pub(super) fn rust_ident(name: &str) -> String {
    if name == "py" {
        "py_".into()
    } else {
        crate::passes::naming::rust_ident(name)
    }
}

#[cfg(test)]
mod tests {
    use super::functions::{Count, Ret};
    use crate::ir::{CallableLife, CallbackKind, PyConv, ValueKind};
    use crate::render::templates::{compared_strings, is_variant};

    /// Every kind a Python template compares with is a variant of the enum behind it.
    #[test]
    fn template_kinds_are_variants() {
        let mut seen = 0;
        for field in ["kind", "callback", "life", "count", "ret"] {
            for (var, value) in compared_strings("python", field) {
                let ok = match (var.as_str(), field) {
                    ("p", "kind") => is_variant::<PyConv>(&value),
                    (_, "kind") => is_variant::<ValueKind>(&value),
                    (_, "callback") => is_variant::<CallbackKind>(&value),
                    (_, "life") => is_variant::<CallableLife>(&value),
                    (_, "count") => is_variant::<Count>(&value),
                    _ => is_variant::<Ret>(&value),
                };
                assert!(ok, "templates/python: {var}.{field} == \"{value}\" names no variant");
                seen += 1;
            }
        }
        assert!(seen > 50, "only {seen} comparisons found");
        assert!(!is_variant::<PyConv>("record"), "a misspelt kind must not pass");
    }
}
