//! View model of the shim's Rust exports: one `#[no_mangle] extern "C"` fn per ABI symbol that
//! forwards to the same-named `sys` function of the `cudagen` crate, and the table that
//! `cuGetProcAddress` uses to hand out the shim's own entry points.

use crate::ir::{Function, Library, Prim, Type, VariantKind};
use crate::profile::Resolve;
use serde::Serialize;
use std::collections::BTreeSet;

/// The driver function whose exports are intercepted instead of forwarded.
pub(super) const GET_PROC_ADDRESS: &str = "cuGetProcAddress";

/// Exports the shim adds beyond the IR's ABI symbols (`symbols.txt` lists only the IR's).
pub(super) const EXTRA_SYMBOLS: &[&str] = &["cuGetProcAddress", "cudagenLastLoaderError", "cudagen_shim_marker"];

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
            .map(|(i, p)| ParamView { name: if p.name.is_empty() { format!("arg{i}") } else { ident(&p.name) }, ty: rust(&p.ty) })
            .collect();
        let intercepted = lib.kind.profile().loader.resolve == Resolve::GetProcAddress && f.name == GET_PROC_ADDRESS;
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
                ret_suffix: if f.ret.is_void() { String::new() } else { format!(" -> {}", rust(&f.ret)) },
                on_panic: crate::render::on_panic(lib, f),
                target: if intercepted { "crate::getproc::get_proc_address".into() } else { format!("sys::{symbol}") },
                intercepted,
                per_thread,
            });
        }
    }
    ExportsView {
        module: lib.kind.module().to_string(),
        header: lib.headers.first().map(|h| h.file.clone()).unwrap_or_default(),
        exports,
    }
}

/// The `cuGetProcAddress` table: every driver ABI by `proc_name`, sorted for binary search.
/// `default_version` stands in for functions `cudaTypedefs.h` gives no version.
pub(super) fn proc_table(lib: &Library, default_version: u32) -> ProcTableView {
    let mut entries: Vec<ProcView> = lib
        .functions
        .iter()
        .filter(|f| f.name != GET_PROC_ADDRESS)
        .map(|f| proc_view(f, default_version))
        .collect();
    if let Some(f) = lib.function(GET_PROC_ADDRESS) {
        entries.push(proc_view(f, default_version));
        // The 11.3 ABI (no `symbolStatus`), exported by hand in `getproc.rs`.
        entries.push(ProcView {
            name: f.proc_name.clone(),
            version: 11030,
            path: "crate::getproc::cuGetProcAddress".into(),
            per_thread: None,
        });
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


/// Rust spelling of a C type, identical to the `sys` layer's (types come from a glob import).
pub(super) fn rust(ty: &Type) -> String {
    match ty {
        Type::Prim { prim: Prim::Void } => "()".into(),
        Type::Prim { prim } => prim.rust_name().into(),
        Type::Named { name } => name.clone(),
        Type::Pointer { pointee, is_const } => {
            let inner = match &**pointee {
                Type::Prim { prim: Prim::Void } => "::core::ffi::c_void".to_string(),
                other => rust(other),
            };
            format!("*{} {inner}", if *is_const { "const" } else { "mut" })
        }
        Type::Array { elem, len } => format!("[{}; {len}]", rust(elem)),
        Type::FnPtr { ret, params } => {
            let ps: Vec<String> = params.iter().map(rust).collect();
            let ret = if ret.is_void() { String::new() } else { format!(" -> {}", rust(ret)) };
            format!("Option<unsafe extern \"C\" fn({}){ret}>", ps.join(", "))
        }
    }
}

/// A parameter name usable in Rust.
pub(super) use crate::passes::naming::rust_ident as ident;

#[derive(Serialize)]
pub(super) struct LegacyView {
    pub entries: Vec<crate::ir::LegacyAbi>,
}

/// The driver's older ABIs, forwarded without a prototype (`legacy.rs`); names the shim
/// exports by hand (`cuGetProcAddress`) are left out.
pub(super) fn legacy(lib: &Library) -> LegacyView {
    LegacyView { entries: lib.legacy_abis.iter().filter(|l| !EXTRA_SYMBOLS.contains(&l.symbol.as_str())).cloned().collect() }
}
