//! The rust surface: crate `cudagen` under `generated/rust/`.
//!
//! Per library (`driver`, `nvrtc`) it writes `src/<module>/{mod.rs, sys.rs, error.rs}` and
//! `src/<module>/types/{mod,enums,records,typedefs,consts}.rs`; `templates/rust/support/**` is
//! copied to `src/` verbatim (loader, trace, util). View models live in the submodules; the
//! templates only print fields and branch on parameter kinds.

mod docs;
mod enums;
mod functions;
mod records;
mod safe;
mod typedefs;
mod types;

use super::{Output, Templates};
use crate::diag::Result;
use crate::ir::{Api, Library, StatusCodes};
use serde::Serialize;
use std::collections::BTreeSet;
use types::Ctx;

const SURFACE: &str = "rust";

/// `Cargo.toml`, `src/lib.rs` and `src/safe/mod.rs`: the crate root over one or more releases.
#[derive(Serialize)]
struct CrateView {
    /// The `cudagen-core` dependency: its version and path (see [`super::runtime_dep`]).
    core: super::RuntimeDep,
    /// One per release: a single-release crate has one with an empty `dir`; a two-era crate
    /// (`render_eras`) one per `cuda-NN` feature, the first the default.
    eras: Vec<EraView>,
    /// The cudarc release the features pin.
    cudarc_version: &'static str,
    /// Stems of `templates/rust/support/safe/*.rs`.
    support: Vec<String>,
    /// `cfg` predicates of a two-era crate: several era features on / none on (empty otherwise).
    conflict_cfg: String,
    none_cfg: String,
    /// The static archives the crate may link (features and `build.rs`): those of its libraries.
    static_links: Vec<StaticLinkView>,
}

/// One CUDA release's generated modules, as the crate root names them.
#[derive(Serialize, Clone)]
pub struct EraView {
    cuda_version: String,
    /// `CUDA_VERSION` of its headers (`12090`); 0 when unknown.
    version_number: u32,
    /// Cargo feature selecting it (`cuda-12`); empty in a single-release crate.
    feature: String,
    /// Folder under `src/` holding its modules (`cuda12/`); empty in a single-release crate.
    dir: String,
    /// The `cfg` predicate that compiles it: a higher era wins when several features are on
    /// (the crate root then stops with `compile_error!`).
    cfg: String,
    modules: Vec<ModuleSummary>,
    safe_modules: Vec<safe::RootModule>,
    /// cudarc's feature for these headers (`cuda-12090`), when cudarc binds them.
    cudarc_feature: Option<String>,
}

/// Every library profile's constant, `variant`, `header` and loader facts, for `src/libraries.rs`.
#[derive(Serialize)]
struct LibrariesView {
    profiles: Vec<ProfileView>,
}

#[derive(Serialize)]
struct ProfileView {
    /// The `loader` constant naming the library: its id in capitals (`NVJITLINK`).
    constant: String,
    variant: &'static str,
    header: &'static str,
    loader: &'static crate::profile::LoaderProfile,
    /// `loader.sonames` for these headers' CUDA major version.
    sonames: Vec<String>,
}

impl LibrariesView {
    fn new(major: Option<u32>) -> Self {
        let profiles = crate::profile::LibraryKind::all()
            .map(|k| k.profile())
            .map(|p| ProfileView {
                constant: loader_constant(p),
                variant: &p.variant,
                header: &p.header,
                loader: &p.loader,
                sonames: p.loader.sonames_for(major),
            })
            .collect();
        LibrariesView { profiles }
    }
}

/// The generated `loader` constant of a library: its id in capitals (`NVJITLINK`).
fn loader_constant(p: &crate::profile::LibraryProfile) -> String {
    p.id.to_uppercase().replace('-', "_")
}

#[derive(Serialize, Clone)]
struct ModuleSummary {
    module: String,
    header: String,
    functions: usize,
}

#[derive(Serialize)]
struct ModuleView {
    module: String,
    /// `Driver` / `Nvrtc`: the `Error` variant and the loader's name of the library.
    kind: String,
    /// `DRIVER` / `NVRTC`: the library's `loader` constant.
    library: String,
    header: String,
    status: Option<String>,
    codes: Option<StatusCodes>,
    enums: Vec<enums::EnumView>,
    records: Vec<records::RecordView>,
    typedefs: Vec<typedefs::TypedefView>,
    consts: Vec<typedefs::ConstView>,
    symbols: Vec<functions::SymbolView>,
    functions: Vec<functions::TypedFn>,
    /// Which `types/` submodules have content.
    type_files: Vec<&'static str>,
    /// Generated types some selected value may be (`crate::Plain` impls).
    plain_types: Vec<String>,
    /// The handles convert to cudarc's `driver::sys` ones (feature `cudarc`).
    cudarc: bool,
    /// The library's static archive, which `sys.rs` links under its feature.
    static_link: Option<&'static crate::profile::StaticLink>,
    /// The library's override variable (it loads a shared library even when linked).
    override_var: &'static str,
}

/// A single-release crate: modules at `src/<module>/`, no era features.
pub fn render(api: &Api, templates: &Templates, out: &mut Output) -> Result<()> {
    let era = render_era(api, templates, out, "")?;
    render_root(vec![era], templates, out)
}

/// The features of a two-era crate: `cuda-<major>` of each release, in order.
pub fn era_feature(api: &Api) -> String {
    format!("cuda-{}", api.cuda_major().unwrap_or(0))
}

/// One release's modules under `src/cuda<major>/` (the era's `mod.rs` included), for a crate
/// whose root [`render_root`] writes over every era.
pub fn render_era_dir(api: &Api, templates: &Templates, out: &mut Output) -> Result<EraView> {
    let dir = era_feature(api).replace('-', "") + "/";
    let mut era = render_era(api, templates, out, &dir)?;
    era.feature = era_feature(api);
    out.files.insert(format!("rust/src/{dir}mod.rs"), templates.render("rust/era.rs.tera", &era)?);
    Ok(era)
}

/// Writes the modules of one release under `src/<dir>` and returns what the root says of them.
fn render_era(api: &Api, templates: &Templates, out: &mut Output, dir: &str) -> Result<EraView> {
    let default_version = api.cuda_version_macro().unwrap_or(0);
    let cudarc_feature = crate::profile::CUDARC.feature(api.cuda_version_macro());
    let mut modules = Vec::new();
    let mut safe_modules = Vec::new();
    for lib in &api.libraries {
        let view = module_view(lib, default_version, cudarc_feature.is_some(), out);
        let m = &view.module;
        let emitted = view.functions.iter().map(|f| f.name.clone()).collect();
        if let Some(sv) = safe::module(&Ctx::new(lib), lib, view.status.as_deref(), &emitted) {
            out.files.insert(format!("rust/src/{dir}safe/{m}.rs"), templates.render("rust/safe_module.rs.tera", &sv)?);
            safe_modules.push(safe::RootModule { module: sv.module, kind: sv.kind });
        }
        let mdir = format!("rust/src/{dir}{m}");
        out.files.insert(format!("{mdir}/mod.rs"), templates.render("rust/module.rs.tera", &view)?);
        out.files.insert(format!("{mdir}/sys.rs"), templates.render("rust/sys.rs.tera", &view)?);
        if view.status.is_some() {
            out.files.insert(format!("{mdir}/error.rs"), templates.render("rust/error.rs.tera", &view)?);
        }
        out.files.insert(format!("{mdir}/types/mod.rs"), templates.render("rust/types.rs.tera", &view)?);
        for file in &view.type_files {
            out.files.insert(format!("{mdir}/types/{file}.rs"), templates.render(&format!("rust/types_{file}.rs.tera"), &view)?);
        }
        modules.push(ModuleSummary { module: m.clone(), header: view.header.clone(), functions: view.functions.len() });
    }
    out.files.insert(
        format!("rust/src/{dir}libraries.rs"),
        templates.render("rust/libraries.rs.tera", &LibrariesView::new(api.cuda_major()))?,
    );
    Ok(EraView {
        cuda_version: api.cuda_version.clone(),
        version_number: default_version,
        feature: String::new(),
        dir: dir.to_string(),
        cfg: String::new(),
        modules,
        safe_modules,
        cudarc_feature,
    })
}

/// The crate root over `eras` (in feature order, the first the default): `Cargo.toml`,
/// `src/lib.rs`, `src/safe/mod.rs` and the verbatim support modules, one copy for every era.
pub fn render_root(mut eras: Vec<EraView>, templates: &Templates, out: &mut Output) -> Result<()> {
    let features: Vec<String> = eras.iter().map(|e| e.feature.clone()).collect();
    for (i, era) in eras.iter_mut().enumerate() {
        era.cfg = era_cfg(&features, i);
    }
    let cudarc = eras.iter().any(|e| e.cudarc_feature.is_some());
    let eras_modules: BTreeSet<String> = eras.iter().flat_map(|e| e.modules.iter().map(|m| m.module.clone())).collect();
    let view = CrateView {
        core: super::runtime_dep("core"),
        eras,
        cudarc_version: crate::profile::CUDARC.version,
        support: safe::support_stems(templates.support_under("rust/support/safe/")),
        conflict_cfg: conflict_cfg(&features),
        none_cfg: none_cfg(&features),
        static_links: static_links(&eras_modules),
    };
    out.files.insert("rust/Cargo.toml".into(), templates.render("rust/Cargo.toml.tera", &view)?);
    if !view.static_links.is_empty() {
        out.files.insert("rust/build.rs".into(), templates.render("rust/build.rs.tera", &view)?);
    }
    out.files.insert("rust/src/lib.rs".into(), templates.render("rust/lib.rs.tera", &view)?);
    out.files.insert("rust/src/safe/mod.rs".into(), templates.render("rust/safe.rs.tera", &view)?);
    if view.eras.iter().any(|e| !e.feature.is_empty()) {
        out.files.insert("rust/README.md".into(), templates.render("rust/README.md.tera", &view)?);
    }
    super::copy_support(templates, out, "rust/support/", "rust/src/", |rel| rel == "cudarc.rs" && !cudarc)
}

/// A static archive the crate may link, with the folders of NVIDIA's wheels it may be in.
#[derive(Serialize)]
struct StaticLinkView {
    #[serde(flatten)]
    link: &'static crate::profile::StaticLink,
    /// The library's wheel folders (`nvidia/cuda_runtime/lib`), searched on the building Python's path.
    wheel_dirs: &'static [String],
    /// The library's override variable, which loads a shared library even when linked.
    override_var: &'static str,
}

/// The static archives of the libraries among `modules`, in profile order.
fn static_links(modules: &BTreeSet<String>) -> Vec<StaticLinkView> {
    crate::profile::LibraryKind::all()
        .map(|k| k.profile())
        .filter(|p| modules.contains(&p.module))
        .filter_map(|p| {
            Some(StaticLinkView {
                link: p.loader.static_link.as_ref()?,
                wheel_dirs: &p.loader.wheel_dirs,
                override_var: &p.loader.override_var,
            })
        })
        .collect()
}

/// `any(all(feature = "a", feature = "b"), ...)` over every pair of era features ("" for fewer than two).
fn conflict_cfg(features: &[String]) -> String {
    let named: Vec<&String> = features.iter().filter(|f| !f.is_empty()).collect();
    let pairs: Vec<String> = named
        .iter()
        .enumerate()
        .flat_map(|(i, a)| named[i + 1..].iter().map(move |b| format!("all(feature = \"{a}\", feature = \"{b}\")")))
        .collect();
    if pairs.is_empty() {
        String::new()
    } else {
        format!("any({})", pairs.join(", "))
    }
}

/// `not(any(feature = "a", ...))` over the era features ("" in a single-release crate).
fn none_cfg(features: &[String]) -> String {
    let named: Vec<String> = features.iter().filter(|f| !f.is_empty()).map(|f| format!("feature = \"{f}\"")).collect();
    if named.is_empty() {
        String::new()
    } else {
        format!("not(any({}))", named.join(", "))
    }
}

/// `feature = "cuda-12"` for a lone era; else era `i` when its feature is on and no later one is.
fn era_cfg(features: &[String], i: usize) -> String {
    let later: Vec<String> = features[i + 1..].iter().map(|f| format!("feature = \"{f}\"")).collect();
    match (features[i].as_str(), later.is_empty()) {
        ("", _) => String::new(),
        (f, true) => format!("feature = \"{f}\""),
        (f, false) => format!("all(feature = \"{f}\", not(any({})))", later.join(", ")),
    }
}

fn module_view(lib: &Library, default_version: u32, cudarc: bool, out: &mut Output) -> ModuleView {
    let ctx = Ctx::new(lib);
    // Typed functions and `Error` need the library's status enum and codes.
    let codes = lib.status_enum.as_ref().and(lib.status_codes);
    let (enums, records, typedefs, consts) = type_views(&ctx, out);
    let (symbols, functions) = function_views(&ctx, default_version, codes.is_some(), out);
    let type_files = [
        ("enums", enums.is_empty()),
        ("records", records.is_empty()),
        ("typedefs", typedefs.is_empty()),
        ("consts", consts.is_empty()),
    ]
    .into_iter()
    .filter_map(|(file, empty)| (!empty).then_some(file))
    .collect();
    ModuleView {
        module: lib.profile().module.to_string(),
        kind: lib.profile().variant.to_string(),
        library: loader_constant(lib.profile()),
        header: lib.headers.first().map(|h| h.file.clone()).unwrap_or_else(|| format!("{}.h", lib.profile().module)),
        status: codes.and(lib.status_enum.clone()),
        codes,
        enums,
        records,
        typedefs,
        consts,
        symbols,
        functions,
        type_files,
        plain_types: plain_types(lib),
        // Only with cudarc's feature for these headers (see `render`) is there a `cudarc` module.
        cudarc: cudarc && lib.profile().cudarc,
        static_link: lib.profile().loader.static_link.as_ref(),
        override_var: &lib.profile().loader.override_var,
    }
}

type TypeViews = (Vec<enums::EnumView>, Vec<records::RecordView>, Vec<typedefs::TypedefView>, Vec<typedefs::ConstView>);

/// The views of the library's enums, records, typedefs and macro constants; what cannot be
/// spelled is reported.
fn type_views(ctx: &Ctx, out: &mut Output) -> TypeViews {
    let lib = ctx.lib;
    let enums = lib.enums.iter().map(|e| enums::view(lib, e)).collect();
    let mut records = Vec::new();
    for r in &lib.records {
        if let Some(why) = records::unsupported(ctx, r) {
            out.coverage.skipped(lib.kind, SURFACE, &format!("record {}", r.name), format!("opaque bytes: {why}"));
        }
        records.push(records::view(ctx, r));
    }
    let typedefs = lib.typedefs.iter().map(|t| typedefs::view(ctx, t)).collect();
    let mut consts = Vec::new();
    for m in &lib.macros {
        match typedefs::macro_view(ctx, m) {
            Ok(c) => consts.push(c),
            Err(why) => out.coverage.skipped(lib.kind, SURFACE, &format!("macro {}", m.name), why),
        }
    }
    (enums, records, typedefs, consts)
}

/// The `sys` symbols of every function and, where the library has a status enum (`typed`), the
/// typed fns; coverage says which are typed fully, partly or not at all.
fn function_views(
    ctx: &Ctx,
    default_version: u32,
    typed: bool,
    out: &mut Output,
) -> (Vec<functions::SymbolView>, Vec<functions::TypedFn>) {
    let kind = ctx.lib.kind;
    let (mut symbols, mut functions, mut names) = (Vec::new(), Vec::new(), BTreeSet::new());
    for f in &ctx.lib.functions {
        let view = (typed && ctx.lib.status_enum.is_some()).then(|| functions::typed(ctx, f));
        symbols.extend(functions::symbols(ctx, f, symbols.len(), default_version, view.as_ref().map(|(t, _)| t.name.as_str())));
        match view {
            None => out.coverage.skipped(kind, SURFACE, &f.name, "library has no status enum: sys binding only"),
            Some((t, _)) if !names.insert(t.name.clone()) => out.coverage.skipped(
                kind,
                SURFACE,
                &f.name,
                format!("typed name `{}` is taken by another function: sys binding only", t.name),
            ),
            Some((t, notes)) => {
                if notes.is_empty() {
                    out.coverage.emitted(kind, SURFACE, &f.name);
                } else {
                    out.coverage.skipped(kind, SURFACE, &f.name, format!("partly raw: {}", notes.join("; ")));
                }
                functions.push(t);
            }
        }
    }
    (symbols, functions)
}

/// The generated types (by their own name, not an alias) that member type tables name.
fn plain_types(lib: &crate::ir::Library) -> Vec<String> {
    use crate::ir::Resolved;
    let names: BTreeSet<String> = lib
        .value_types
        .iter()
        .flat_map(|t| &t.members)
        .filter_map(|m| match lib.resolve(&m.ty) {
            Resolved::Enum(e) => Some(e.name.clone()),
            Resolved::Record(r) => Some(r.name.clone()),
            Resolved::OpaqueHandle(t) | Resolved::ScalarHandle(t, _) => Some(t.name.clone()),
            _ => None,
        })
        .collect();
    names.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::functions::{Returns, TKind};
    use super::typedefs::TypedefShape;
    use crate::render::templates::{compared_strings, is_variant};

    /// Every kind a Rust template compares with is a variant of the enum behind it.
    #[test]
    fn template_kinds_are_variants() {
        let mut seen = 0;
        for field in ["kind", "returns"] {
            for (var, value) in compared_strings("rust", field) {
                let ok = match (var.as_str(), field) {
                    ("p", "kind") => is_variant::<TKind>(&value),
                    ("t", "kind") => is_variant::<TypedefShape>(&value),
                    _ => is_variant::<Returns>(&value),
                };
                assert!(ok, "templates/rust: {var}.{field} == \"{value}\" names no variant");
                seen += 1;
            }
        }
        assert!(seen > 10, "only {seen} comparisons found");
    }
}
