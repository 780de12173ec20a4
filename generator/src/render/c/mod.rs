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
//!   `src/proc_table.rs`: the ABIs by the entry resolver's name and version (`cuGetProcAddress`),
//!   `src/getproc.rs`: the resolver's exports over `cudagen_c_core::getproc` (the hand-written
//!   support crate `runtime/c-core`, a dependency like the `cudagen` crate).
//! * `tests/abi_probe.c`: layouts, constants and prototypes, to compare the headers with NVIDIA's.
//! * `Cargo.toml`, `cudagen.pc`, `cmake/cudagenConfig{,Version}.cmake` (the CMake package),
//!   `symbols.txt` (the IR's ABI symbols, one per line: the shim's dynamic symbol table must
//!   equal it plus [`exports::extra_symbols`]).

mod docs;
mod exports;
mod header;
mod probe;

use super::{Output, Templates};
use crate::diag::{Error, Result};
use crate::ir::{Api, Library};
use serde::Serialize;
use std::collections::BTreeSet;

const SURFACE: &str = "c";

#[derive(Serialize)]
struct CrateView {
    cuda_version: String,
    modules: Vec<String>,
    headers: Vec<String>,
    extra_symbols: Vec<&'static str>,
    /// The shim answers a library's entry resolver (`cuGetProcAddress`): the interceptor and its
    /// table are generated.
    intercept: bool,
    /// The library's older ABIs are forwarded by `legacy.rs`.
    legacy: bool,
    symbol_count: usize,
    /// The `cudagen-c-core` dependency: its version and path (see [`super::runtime_dep`]).
    c_core: super::RuntimeDep,
}

#[derive(Serialize)]
struct SymbolsView {
    symbols: Vec<String>,
}

/// What the libraries' files add up to, for the crate-level files.
#[derive(Default)]
struct Collected {
    modules: Vec<String>,
    headers: Vec<String>,
    /// Every exported ABI symbol (legacy ones included).
    symbols: BTreeSet<String>,
    intercept: bool,
    legacy: bool,
}

pub fn render(api: &Api, templates: &Templates, out: &mut Output) -> Result<()> {
    let mut c = Collected::default();
    for lib in &api.libraries {
        headers(lib, &api.cuda_version, templates, out, &mut c)?;
        exports(lib, api.cuda_version_macro().unwrap_or(0), templates, out, &mut c)?;
        for f in &lib.functions {
            out.coverage.emitted(lib.kind, SURFACE, &f.name);
        }
    }
    crate_files(api, templates, out, c)
}

/// The library's C headers: its main header and each companion that declares something.
fn headers(lib: &Library, cuda_version: &str, templates: &Templates, out: &mut Output, c: &mut Collected) -> Result<()> {
    for h in header::views(lib, cuda_version)? {
        let root = if h.parent.is_empty() { "c/library.h.tera" } else { "c/companion.h.tera" };
        out.files.insert(format!("c/include/{}", h.file), templates.render(root, &h)?);
        c.headers.push(h.file.clone());
    }
    Ok(())
}

/// The library's exports and, where the shim answers its entry resolver, the resolver's table
/// and the older ABIs.
fn exports(lib: &Library, default_version: u32, templates: &Templates, out: &mut Output, c: &mut Collected) -> Result<()> {
    let x = exports::view(lib);
    c.symbols.extend(x.exports.iter().map(|e| e.symbol.clone()));
    out.files.insert(format!("c/src/{}.rs", x.module), templates.render("c/exports.rs.tera", &x)?);
    c.modules.push(x.module.clone());
    if exports::resolver(lib).is_none() {
        return Ok(());
    }
    let t = exports::proc_table(lib, default_version);
    out.files.insert("c/src/proc_table.rs".into(), templates.render("c/proc_table.rs.tera", &t)?);
    out.files.insert("c/src/getproc.rs".into(), templates.render("c/getproc.rs.tera", &exports::getproc(lib, &x)?)?);
    c.intercept = true;
    let l = exports::legacy(lib);
    if !l.entries.is_empty() {
        c.symbols.extend(l.entries.iter().map(|e| e.symbol.clone()));
        out.files.insert("c/src/legacy.rs".into(), templates.render("c/legacy.rs.tera", &l)?);
        c.legacy = true;
    }
    Ok(())
}

/// `Cargo.toml`, `lib.rs`, `cudagen.h`, the pkg-config file, the CMake package files, the
/// README, the ABI probe and
/// `symbols.txt`, and the verbatim support files.
fn crate_files(api: &Api, templates: &Templates, out: &mut Output, c: Collected) -> Result<()> {
    let extra_symbols = exports::extra_symbols(&api.libraries);
    if let Some(extra) = extra_symbols.iter().find(|x| c.symbols.contains(**x)) {
        return Err(Error::new(format!("c surface: `{extra}` is both an ABI symbol and a shim extra")));
    }
    let intercept = c.intercept;
    let view = CrateView {
        cuda_version: api.cuda_version.clone(),
        modules: c.modules,
        headers: c.headers,
        extra_symbols,
        intercept,
        legacy: c.legacy,
        symbol_count: c.symbols.len(),
        c_core: super::runtime_dep("c-core"),
    };
    for (file, template) in [
        ("Cargo.toml", "Cargo.toml"),
        ("src/lib.rs", "lib.rs"),
        ("include/cudagen.h", "cudagen.h"),
        ("cudagen.pc", "cudagen.pc"),
        ("README.md", "README.md"),
        ("cmake/cudagenConfig.cmake", "cmake/cudagenConfig.cmake"),
        ("cmake/cudagenConfigVersion.cmake", "cmake/cudagenConfigVersion.cmake"),
    ] {
        out.files.insert(format!("c/{file}"), templates.render(&format!("c/{template}.tera"), &view)?);
    }
    let libs: Vec<&Library> = api.libraries.iter().collect();
    out.files.insert("c/tests/abi_probe.c".into(), templates.render("c/abi_probe.c.tera", &probe::view(&libs, &view.headers))?);
    let symbols = SymbolsView { symbols: c.symbols.into_iter().collect() };
    out.files.insert("c/symbols.txt".into(), templates.render("c/symbols.txt.tera", &symbols)?);
    Ok(())
}
