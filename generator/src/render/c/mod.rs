//! The C surface: crate `cudagen-shim` under `generated/c/` (a Rust `cdylib` + `staticlib` named
//! `cudagen`) plus the C headers that declare what it exports.
//!
//! Files written:
//! * `include/cuda.h`, `include/nvrtc.h` and `cuda.h`'s companions (`cudaGL.h`, `cudaEGL.h`,
//!   `cudaVDPAU.h`, `cudaProfiler.h`): every type, enum, record, typedef, macro constant and
//!   prototype of the library, each in the header that declares it, rendered from the IR
//!   (NVIDIA's headers are never shipped);
//!   `include/cudagen.h`: the shim's own API.
//! * `src/lib.rs`, `src/<module>.rs`: one `#[no_mangle] extern "C"` export per ABI symbol,
//!   forwarding to `cudagen::<module>::sys::<symbol>` (loader + tracing live there);
//!   `src/proc_table.rs`: the driver ABIs by `cuGetProcAddress` name and version;
//!   `templates/c/support/*.rs` (interception of `cuGetProcAddress`, `cudagenLastLoaderError`)
//!   are copied verbatim into `src/`.
//! * `tests/abi_probe.c`: layouts, constants and prototypes, to compare the headers with NVIDIA's.
//! * `Cargo.toml`, `cudagen.pc`, `symbols.txt` (the IR's ABI symbols, one per line: the shim's
//!   dynamic symbol table must equal it plus [`exports::EXTRA_SYMBOLS`]).

mod docs;
mod exports;
mod header;
mod probe;

use super::{Output, Templates};
use crate::diag::{Error, Result};
use crate::ir::Api;
use crate::profile::Resolve;
use serde::Serialize;
use std::collections::BTreeSet;

const SURFACE: &str = "c";

#[derive(Serialize)]
struct CrateView {
    cuda_version: String,
    modules: Vec<String>,
    headers: Vec<String>,
    extra_symbols: Vec<&'static str>,
    /// The driver has `cuGetProcAddress`: the interceptor and its table are generated.
    intercept: bool,
    /// The driver's older ABIs are forwarded by `legacy.rs`.
    legacy: bool,
    symbol_count: usize,
}

#[derive(Serialize)]
struct SymbolsView {
    symbols: Vec<String>,
}

pub fn render(api: &Api, templates: &Templates, out: &mut Output) -> Result<()> {
    let default_version = api.cuda_version_macro().unwrap_or(0);
    let mut modules = Vec::new();
    let mut headers = Vec::new();
    let mut symbols = BTreeSet::new();
    let mut intercept = false;
    let mut legacy = false;
    for lib in &api.libraries {
        for h in header::views(lib, &api.cuda_version)? {
            let root = if h.parent.is_empty() { lib.kind.profile().c_template } else { "c/companion.h.tera" };
            out.files.insert(format!("c/include/{}", h.file), templates.render(root, &h)?);
            headers.push(h.file.clone());
        }

        let x = exports::view(lib);
        for e in &x.exports {
            symbols.insert(e.symbol.clone());
        }
        out.files.insert(format!("c/src/{}.rs", x.module), templates.render("c/exports.rs.tera", &x)?);
        modules.push(x.module.clone());
        if lib.kind.profile().loader.resolve == Resolve::GetProcAddress && lib.function(exports::GET_PROC_ADDRESS).is_some() {
            let t = exports::proc_table(lib, default_version);
            out.files.insert("c/src/proc_table.rs".into(), templates.render("c/proc_table.rs.tera", &t)?);
            intercept = true;
            let l = exports::legacy(lib);
            if !l.entries.is_empty() {
                symbols.extend(l.entries.iter().map(|e| e.symbol.clone()));
                out.files.insert("c/src/legacy.rs".into(), templates.render("c/legacy.rs.tera", &l)?);
                legacy = true;
            }
        }
        for f in &lib.functions {
            out.coverage.emitted(lib.kind, SURFACE, &f.name);
        }
    }
    // Without cuGetProcAddress (fixture headers) there is nothing to intercept.
    let extra_symbols: Vec<&'static str> =
        exports::EXTRA_SYMBOLS.iter().copied().filter(|s| intercept || !s.starts_with("cuGetProcAddress")).collect();
    for extra in &extra_symbols {
        if symbols.contains(*extra) {
            return Err(Error::new(format!("c surface: `{extra}` is both an ABI symbol and a shim extra")));
        }
    }
    let view = CrateView {
        cuda_version: api.cuda_version.clone(),
        modules,
        headers,
        extra_symbols,
        intercept,
        legacy,
        symbol_count: symbols.len(),
    };
    out.files.insert("c/Cargo.toml".into(), templates.render("c/Cargo.toml.tera", &view)?);
    out.files.insert("c/src/lib.rs".into(), templates.render("c/lib.rs.tera", &view)?);
    out.files.insert("c/include/cudagen.h".into(), templates.render("c/cudagen.h.tera", &view)?);
    out.files.insert("c/cudagen.pc".into(), templates.render("c/cudagen.pc.tera", &view)?);
    out.files.insert("c/README.md".into(), templates.render("c/README.md.tera", &view)?);
    let libs: Vec<&crate::ir::Library> = api.libraries.iter().collect();
    out.files.insert("c/tests/abi_probe.c".into(), templates.render("c/abi_probe.c.tera", &probe::view(&libs, &view.headers))?);
    let symbols = SymbolsView { symbols: symbols.into_iter().collect() };
    out.files.insert("c/symbols.txt".into(), templates.render("c/symbols.txt.tera", &symbols)?);
    super::copy_support(templates, out, "c/support/", "c/src/", |rel| rel == "getproc.rs" && !intercept)
}


