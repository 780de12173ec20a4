//! View model of the shim's Rust exports: one `#[no_mangle] extern "C"` fn per ABI symbol that
//! forwards to the same-named `sys` function of the `cudagen` crate, and the table that
//! `cuGetProcAddress` uses to hand out the shim's own entry points.

use crate::diag::{Error, Result};
use crate::ir::{Export, Function, Library, VariantKind};
use crate::render::rust_type::{ret_suffix, spell, Prims};
use serde::Serialize;
use std::collections::BTreeSet;

/// The shim's own exports (`cudagen.h`), beyond the IR's ABI symbols (`symbols.txt` lists only
/// the IR's).
pub(super) const SHIM_SYMBOLS: &[&str] = &["cudagenLastLoaderError", "cudagen_shim_marker"];

/// Exports the shim adds: the unversioned name of an entry resolver it answers (the profile's
/// `resolver`), then its own.
pub(super) fn extra_symbols(libs: &[Library]) -> Vec<&'static str> {
    let resolvers = libs.iter().filter(|l| resolver(l).is_some()).filter_map(|l| l.profile().resolver.as_ref());
    resolvers.map(|r| r.function.as_str()).chain(SHIM_SYMBOLS.iter().copied()).collect()
}

/// The function of `lib` the shim answers itself, if any.
pub(super) fn resolver(lib: &Library) -> Option<&Function> {
    lib.functions.iter().find(|f| !f.export.is_forward())
}

#[derive(Serialize)]
pub(super) struct ExportsView {
    /// `driver` / `nvrtc`: the module of the `cudagen` crate and of the shim.
    pub module: String,
    pub header: String,
    pub exports: Vec<ExportView>,
}

#[derive(Serialize)]
pub(super) struct ExportView {
    pub symbol: String,
    pub api_name: String,
    pub params: Vec<ParamView>,
    /// ` -> CUresult`, or empty for `void`.
    pub ret_suffix: String,
    /// What the export returns if the call panicked (it never should).
    pub on_panic: String,
    /// The function called: `sys::cuMemAlloc_v2`, or the interceptor.
    pub target: String,
    /// `cuGetProcAddress*`: the shim's own code runs (under `guard`).
    pub intercepted: bool,
    pub per_thread: bool,
}

#[derive(Serialize)]
pub(super) struct ParamView {
    pub name: String,
    pub ty: String,
}

#[derive(Serialize)]
pub(super) struct ProcTableView {
    pub entries: Vec<ProcView>,
}

/// One ABI of one `cuGetProcAddress` name, with its per-thread twin if it has one.
#[derive(Serialize, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct ProcView {
    pub name: String,
    pub version: u32,
    /// Path of the shim's export (`crate::driver::cuMemAlloc_v2`).
    pub path: String,
    /// Path and version of the `_ptds`/`_ptsz` export.
    pub per_thread: Option<(String, u32)>,
}

pub(super) fn view(lib: &Library) -> ExportsView {
    let mut exports = Vec::new();
    let mut seen = BTreeSet::new();
    for f in &lib.functions {
        let params: Vec<ParamView> = f
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| ParamView {
                name: if p.name.is_empty() { format!("arg{i}") } else { ident(&p.name) },
                ty: spell(&p.ty, Prims::Path),
            })
            .collect();
        let intercepted = matches!(f.export, Export::Resolver { .. });
        let variants = std::iter::once((f.symbol.as_str(), false))
            .chain(f.variants.iter().map(|v| (v.symbol.as_str(), matches!(v.kind, VariantKind::Ptds | VariantKind::Ptsz))));
        for (symbol, per_thread) in variants {
            if !seen.insert(symbol.to_string()) {
                continue;
            }
            exports.push(ExportView {
                symbol: symbol.to_string(),
                api_name: f.name.clone(),
                params: params.iter().map(|p| ParamView { name: p.name.clone(), ty: p.ty.clone() }).collect(),
                ret_suffix: ret_suffix(&f.ret, Prims::Path),
                on_panic: crate::render::inert::on_panic(lib, f),
                target: if intercepted { "crate::getproc::get_proc_address".into() } else { format!("sys::{symbol}") },
                intercepted,
                per_thread,
            });
        }
    }
    ExportsView {
        module: lib.profile().module.to_string(),
        header: lib.headers.first().map(|h| h.file.clone()).unwrap_or_default(),
        exports,
    }
}

/// The resolver's own module (`getproc.rs`): its main export's prototype, run by the interceptor.
#[derive(Serialize)]
pub(super) struct GetProcView<'a> {
    pub module: &'a str,
    /// API name of the resolver, also the name of its oldest ABI (exported by this module).
    pub name: &'a str,
    /// The status type its exports return.
    pub status: &'a str,
    pub e: &'a ExportView,
}

pub(super) fn getproc<'a>(lib: &'a Library, x: &'a ExportsView) -> Result<GetProcView<'a>> {
    let f = resolver(lib).ok_or_else(|| Error::new("c surface: no entry resolver"))?;
    let e = x
        .exports
        .iter()
        .find(|e| e.symbol == f.symbol)
        .ok_or_else(|| Error::new(format!("c surface: `{}` is not exported", f.symbol)))?;
    let status = lib.status_enum.as_deref().ok_or_else(|| Error::new(format!("c surface: `{}` returns no status", f.name)))?;
    Ok(GetProcView { module: &x.module, name: &f.name, status, e })
}

/// The `cuGetProcAddress` table: every driver ABI by `proc_name`, sorted for binary search.
/// `default_version` stands in for functions `cudaTypedefs.h` gives no version.
pub(super) fn proc_table(lib: &Library, default_version: u32) -> ProcTableView {
    let mut entries: Vec<ProcView> = lib.functions.iter().map(|f| proc_view(f, default_version)).collect();
    // The resolver's older ABIs, exported by hand (`getproc.rs`).
    if let (Some(f), Some(r)) = (resolver(lib), &lib.profile().resolver) {
        for (version, path) in &r.hand_abis {
            entries.push(ProcView { name: f.proc_name.clone(), version: *version, path: path.clone(), per_thread: None });
        }
    }
    entries.sort();
    entries.dedup_by(|a, b| a.name == b.name && a.version == b.version);
    ProcTableView { entries }
}

fn proc_view(f: &Function, default_version: u32) -> ProcView {
    let version = f.version.unwrap_or(default_version);
    let per_thread = f
        .variants
        .iter()
        .find(|v| matches!(v.kind, VariantKind::Ptds | VariantKind::Ptsz))
        .map(|v| (format!("crate::driver::{}", v.symbol), v.version.unwrap_or(version)));
    ProcView { name: f.proc_name.clone(), version, path: format!("crate::driver::{}", f.symbol), per_thread }
}

/// A parameter name usable in Rust.
pub(super) use crate::passes::naming::rust_ident as ident;

#[derive(Serialize)]
pub(super) struct LegacyView {
    pub entries: Vec<crate::ir::LegacyAbi>,
    /// What a forwarded ABI answers when it cannot be resolved (the profile's status codes, name
    /// and value): without the library, else for a missing entry point.
    pub library_missing: (&'static str, i64),
    pub symbol_missing: (&'static str, i64),
}

/// The library's older ABIs, forwarded without a prototype (`legacy.rs`); names the shim
/// exports by hand (the resolver's, its own) are left out.
pub(super) fn legacy(lib: &Library) -> LegacyView {
    let hand = |s: &str| SHIM_SYMBOLS.contains(&s) || lib.profile().resolver.as_ref().is_some_and(|r| r.function == s);
    let status = &lib.profile().status;
    LegacyView {
        entries: lib.legacy_abis.iter().filter(|l| !hand(&l.symbol)).cloned().collect(),
        library_missing: (&status.library_missing.0, status.library_missing.1),
        symbol_missing: (&status.symbol_missing.0, status.symbol_missing.1),
    }
}
