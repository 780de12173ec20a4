//! ABI versions from `cudaTypedefs.h`.
//!
//! For each function, the `PFN_<proc_name>_v<N>` typedef whose canonical parameter types match
//! the declaration gives the version that introduced that ABI; `PFN_<proc_name>_v<N>_ptds`/`_ptsz`
//! give the per-thread variants' versions. The `#define PFN_cuX PFN_cuX_vN` default is
//! deliberately not used: it can name another ABI (`PFN_cuCtxCreate` is the v11040 signature,
//! `cuCtxCreate` declares the v3020 one).
//!
//! Several ABIs of one name can share a prototype and still differ in meaning
//! (`cuEventElapsedTime` v2000 and `cuEventElapsedTime_v2` v12080; `cuGraphAddNode_v2` v12030
//! and `cuGraphAddNode_v3` v13040). The i-th ABI of a name (ascending, all of the header's
//! typedefs, [`AbiVersions`]) is exported as `<name>` for i = 0 and `<name>_v<i+1>` after, so a
//! symbol's version is taken from its own place in that list ([`abi_window`]), never from a
//! newer ABI of the same prototype: `cuGetProcAddress` at the newer version would bind the other
//! symbol, and an older driver lacks it.

use crate::clang::{Cursor, CursorKind, Ty, TyKind};
use crate::ir::*;
use std::collections::{BTreeMap, BTreeSet};

/// Canonical signature: return type and parameter types as libclang spells them canonically.
type Signature = Vec<String>;

fn signature(ret: &Ty<'_>, params: &[Ty<'_>]) -> Signature {
    std::iter::once(ret).chain(params).map(|t| t.canonical().spelling()).collect()
}

/// Splits `PFN_cuMemcpyHtoD_v7000_ptds` into (`cuMemcpyHtoD`, 7000, Some(Ptds)).
fn split_pfn(name: &str) -> Option<(&str, u32, Option<VariantKind>)> {
    let rest = name.strip_prefix("PFN_")?;
    let (rest, kind) = match rest {
        r if r.ends_with("_ptds") => (&r[..r.len() - 5], Some(VariantKind::Ptds)),
        r if r.ends_with("_ptsz") => (&r[..r.len() - 5], Some(VariantKind::Ptsz)),
        r => (r, None),
    };
    let idx = rest.rfind("_v")?;
    let version: u32 = rest[idx + 2..].parse().ok()?;
    Some((&rest[..idx], version, kind))
}

/// The name `cuGetProcAddress` knows an ABI symbol by: `cuMemAlloc_v2` -> `cuMemAlloc`.
pub fn proc_name(symbol: &str) -> &str {
    match symbol.rfind("_v") {
        Some(i) if i > 0 && symbol[i + 2..].chars().all(|c| c.is_ascii_digit()) && symbol.len() > i + 2 => &symbol[..i],
        _ => symbol,
    }
}

/// `PFN_*` typedefs by (proc name, variant): each version with its signature.
type PfnVersions = BTreeMap<(String, Option<VariantKind>), Vec<(u32, Signature)>>;

/// Every plain (not per-thread) ABI version of each name, ascending, from the text of the
/// typedef headers ([`abi_versions`]): libclang skips the oldest, under
/// `__CUDA_API_VERSION_INTERNAL`, but they count for each symbol's place.
pub type AbiVersions = BTreeMap<String, Vec<u32>>;

/// The exported name of the `i`-th ABI of `name` (`cuMemAlloc`, `cuMemAlloc_v2`, ...).
fn abi_symbol(name: &str, i: usize) -> String {
    if i == 0 {
        name.to_string()
    } else {
        format!("{name}_v{}", i + 1)
    }
}

/// The versions from which `symbol`, an ABI of `name`, is the one `cuGetProcAddress(name, v)`
/// gives: from its own version to the next ABI's (exclusive; `u32::MAX` for the newest). `None`
/// when `symbol` is not at its place in `versions` (the name does not follow the rule).
fn abi_window(name: &str, symbol: &str, versions: &AbiVersions) -> Option<(u32, u32)> {
    let vs = versions.get(name)?;
    let i = (0..vs.len()).find(|&i| abi_symbol(name, i) == symbol)?;
    Some((vs[i], vs.get(i + 1).copied().unwrap_or(u32::MAX)))
}

/// The version of an ABI whose typedefs of the same signature have `matching` versions (of
/// those libclang `seen`): the newest inside `window` (the symbol's own ABI), else the window's
/// start where libclang did not see its typedef, else the newest of all (a name off the rule).
fn pick(matching: &[u32], window: Option<(u32, u32)>, seen: &[u32]) -> Option<u32> {
    if let Some((from, to)) = window {
        let inside = matching.iter().copied().filter(|v| (from..to).contains(v)).max();
        if inside.is_some() {
            return inside;
        }
        if !seen.contains(&from) {
            return Some(from);
        }
    }
    matching.iter().copied().max()
}

pub fn assign(top: &[Cursor<'_>], typedefs_files: &BTreeSet<String>, abis: &AbiVersions, library: &mut Library) {
    let mut pfns: PfnVersions = BTreeMap::new();
    let mut decls: BTreeMap<String, Signature> = BTreeMap::new();
    for c in top {
        match c.kind() {
            CursorKind::Typedef if typedefs_files.contains(&c.location().file) => {
                let Some((base, version, kind)) = split_pfn(&c.spelling()).map(|(b, v, k)| (b.to_string(), v, k)) else {
                    continue;
                };
                let under = c.typedef_underlying();
                if under.kind() != TyKind::Pointer {
                    continue;
                }
                let proto = under.pointee();
                pfns.entry((base, kind)).or_default().push((version, signature(&proto.result(), &proto.args())));
            }
            CursorKind::Function => {
                let params: Vec<Ty<'_>> = c.arguments().iter().map(|p| p.ty()).collect();
                decls.insert(c.spelling(), signature(&c.result_type(), &params));
            }
            _ => {}
        }
    }
    let best = |base: &str, kind: Option<VariantKind>, sig: &Signature, window: Option<(u32, u32)>| -> Option<u32> {
        let typedefs = pfns.get(&(base.to_string(), kind))?;
        let matching: Vec<u32> = typedefs.iter().filter(|(_, s)| s == sig).map(|(v, _)| *v).collect();
        let seen: Vec<u32> = typedefs.iter().map(|(v, _)| *v).collect();
        pick(&matching, window, &seen)
    };
    for f in &mut library.functions {
        f.proc_name = proc_name(&f.symbol).to_string();
        let Some(sig) = decls.get(&f.symbol) else { continue };
        let window = abi_window(&f.proc_name, &f.symbol, abis);
        f.version = best(&f.proc_name, None, sig, window);
        for v in &mut f.variants {
            v.version = best(&f.proc_name, Some(v.kind), sig, window);
        }
    }
}

/// The plain ABI versions of every `PFN_<name>_v<N>` typedef name in `typedefs` (the text of
/// the typedef headers, Windows-only branches left out), ascending per name.
pub fn abi_versions(typedefs: &str) -> AbiVersions {
    let mut versions: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for (base, v, kind) in pfn_names(&without_windows_blocks(typedefs)) {
        if kind.is_none() {
            versions.entry(base).or_default().insert(v);
        }
    }
    versions.into_iter().map(|(k, v)| (k, v.into_iter().collect())).collect()
}

/// Every `PFN_*` typedef named in `text` (`(CUDAAPI *PFN_..)`), split by [`split_pfn`].
fn pfn_names(text: &str) -> Vec<(String, u32, Option<VariantKind>)> {
    text.split("(CUDAAPI *")
        .skip(1)
        .filter_map(|piece| piece.split(')').next())
        .filter_map(split_pfn)
        .map(|(b, v, k)| (b.to_string(), v, k))
        .collect()
}

/// The older ABIs of each declared name, from every `PFN_<name>_v<N>` typedef name in the text
/// of `cudaTypedefs.h` (the oldest sit under `__CUDA_API_VERSION_INTERNAL`, which libclang
/// skips; only names and versions are needed): the i-th version (ascending) is exported as
/// `<name>` for i = 0 and `<name>_v<i+1>` after (`cuStreamWaitValue32` v8000,
/// `cuStreamWaitValue32_v2` v11070), and `PFN_<name>_v<N>_ptsz` is that symbol plus `_ptsz`.
/// A name whose declared symbols do not fit that rule contributes none; symbols the header
/// declares are not legacy. Run after [`assign`].
pub fn legacy_from_text(typedefs: &str, library: &mut Library) {
    let versions = abi_versions(typedefs);
    let mut per_thread: BTreeMap<String, Vec<(u32, VariantKind)>> = BTreeMap::new();
    for (base, v, kind) in pfn_names(&without_windows_blocks(typedefs)) {
        if let Some(kind) = kind {
            per_thread.entry(base).or_default().push((v, kind));
        }
    }
    let declared: BTreeSet<&str> = library.functions.iter().flat_map(|f| f.all_symbols()).collect();
    // Declared names, and typedef'd names no function declares any more (`cuGraphInstantiate`,
    // which cuda.h maps to `cuGraphInstantiateWithFlags`).
    let names: BTreeSet<&str> =
        library.functions.iter().map(|f| f.proc_name.as_str()).chain(versions.keys().map(String::as_str)).collect();
    let mut out = Vec::new();
    for name in names {
        let Some(vs) = versions.get(name) else { continue };
        let fits = library.functions.iter().filter(|f| f.proc_name == name).all(|f| match f.version {
            Some(v) => vs.iter().position(|x| *x == v).is_some_and(|i| abi_symbol(name, i) == f.symbol),
            None => true,
        });
        if !fits {
            continue;
        }
        for (i, v) in vs.iter().enumerate() {
            let symbol = abi_symbol(name, i);
            if !declared.contains(symbol.as_str()) {
                out.push(LegacyAbi { symbol, proc_name: name.to_string(), version: *v, per_thread: false });
            }
        }
        // `PFN_<name>_v<N>_ptsz`: the per-thread export of the ABI of version N, or of the newest
        // before it when N is only per-thread (`PFN_cuGLMapBufferObject_v7000_ptds` is
        // `cuGLMapBufferObject_v2_ptds`, whose plain ABI is v3020).
        for (v, kind) in per_thread.get(name).into_iter().flatten() {
            let Some(i) = vs.iter().rposition(|x| x <= v) else { continue };
            let symbol = format!("{}{}", abi_symbol(name, i), kind.per_thread_suffix().unwrap_or_default());
            if !declared.contains(symbol.as_str()) {
                out.push(LegacyAbi { symbol, proc_name: name.to_string(), version: *v, per_thread: true });
            }
        }
    }
    out.sort();
    out.dedup();
    library.legacy_abis = out;
}

/// `text` without the lines of its `#ifdef _WIN32` branches (declarations Linux drivers lack,
/// such as `cuWGLGetDevice`); an `#else` branch of one is kept.
fn without_windows_blocks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    // Conditional nesting depth, and the depth of the Windows branch being skipped.
    let (mut depth, mut skipping) = (0usize, None::<usize>);
    for line in text.lines() {
        let directive = line.trim_start().strip_prefix('#').map(str::trim_start).unwrap_or("");
        if directive.starts_with("if") {
            depth += 1;
            if skipping.is_none() && (directive.starts_with("ifdef _WIN32") || directive.starts_with("if defined(_WIN32)")) {
                skipping = Some(depth);
            }
        } else if directive.starts_with("el") && skipping == Some(depth) {
            skipping = None;
        } else if directive.starts_with("endif") {
            if skipping == Some(depth) {
                skipping = None;
                depth -= 1;
                continue;
            }
            depth = depth.saturating_sub(1);
        }
        if skipping.is_none() {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_pfn_names() {
        assert_eq!(split_pfn("PFN_cuMemAlloc_v3020"), Some(("cuMemAlloc", 3020, None)));
        assert_eq!(split_pfn("PFN_cuMemcpyHtoD_v7000_ptds"), Some(("cuMemcpyHtoD", 7000, Some(VariantKind::Ptds))));
        assert_eq!(split_pfn("PFN_cuCtxCreate_v11040"), Some(("cuCtxCreate", 11040, None)));
        assert_eq!(split_pfn("PFN_cuMemAlloc"), None);
    }

    #[test]
    fn a_symbol_takes_the_version_of_its_own_place_never_a_newer_abi_of_the_same_prototype() {
        let text = "typedef CUresult (CUDAAPI *PFN_cuGraphAddNode_v12020)(int);\n\
            typedef CUresult (CUDAAPI *PFN_cuGraphAddNode_v12030)(int, int);\n\
            typedef CUresult (CUDAAPI *PFN_cuGraphAddNode_v13040)(int, int);\n\
            #if defined(__CUDA_API_VERSION_INTERNAL)\ntypedef CUresult (CUDAAPI *PFN_cuEventElapsedTime_v2000)(int);\n#endif\n\
            typedef CUresult (CUDAAPI *PFN_cuEventElapsedTime_v12080)(int);\n";
        let abis = abi_versions(text);
        assert_eq!(abis["cuGraphAddNode"], [12020, 12030, 13040]);
        assert_eq!(abi_window("cuGraphAddNode", "cuGraphAddNode_v2", &abis), Some((12030, 13040)));
        assert_eq!(abi_window("cuGraphAddNode", "cuGraphAddNode_v3", &abis), Some((13040, u32::MAX)));
        assert_eq!(abi_window("cuGraphAddNode", "cuGraphAddNode_v4", &abis), None);
        // v12030 and v13040 share the prototype: each symbol keeps its own.
        let both = [12030, 13040];
        assert_eq!(pick(&both, abi_window("cuGraphAddNode", "cuGraphAddNode_v2", &abis), &[12020, 12030, 13040]), Some(12030));
        assert_eq!(pick(&both, abi_window("cuGraphAddNode", "cuGraphAddNode_v3", &abis), &[12020, 12030, 13040]), Some(13040));
        // The v1 typedef is one libclang skips: the text's place still gives v1 its version.
        let window = abi_window("cuEventElapsedTime", "cuEventElapsedTime", &abis);
        assert_eq!(pick(&[12080], window, &[12080]), Some(2000));
        assert_eq!(pick(&[12080], abi_window("cuEventElapsedTime", "cuEventElapsedTime_v2", &abis), &[12080]), Some(12080));
        // A name off the rule keeps the newest matching typedef.
        assert_eq!(pick(&[3020, 4010], None, &[2020, 3020, 4010]), Some(4010));
        assert_eq!(pick(&[], None, &[2020]), None);
    }

    #[test]
    fn windows_branches_are_left_out() {
        let text = "a\n#ifdef _WIN32\nwin\n#if X\nwin2\n#endif\n#else\nunix\n#endif\n#if defined(_WIN32)\nwin3\n#endif\nb\n";
        assert_eq!(without_windows_blocks(text), "a\n#else\nunix\n#endif\nb\n");
    }

    #[test]
    fn deprecated_and_per_thread_legacy_abis_from_typedef_text() {
        let text = "typedef CUresult (CUDAAPI *PFN_cuGLInit_v2000)(void);\n\
            typedef CUresult (CUDAAPI *PFN_cuGLMapBufferObject_v7000_ptds)(void);\n\
            typedef CUresult (CUDAAPI *PFN_cuGLMapBufferObject_v3020)(void);\n\
            #ifdef _WIN32\ntypedef CUresult (CUDAAPI *PFN_cuWGLGetDevice_v2020)(void);\n#endif\n\
            typedef CUresult (CUDAAPI *PFN_cuGLMapBufferObject_v2000)(void);\n";
        let mut library = Library::new(crate::profile::kind("driver"));
        legacy_from_text(text, &mut library);
        let got: Vec<(&str, u32, bool)> =
            library.legacy_abis.iter().map(|l| (l.symbol.as_str(), l.version, l.per_thread)).collect();
        assert_eq!(
            got,
            [
                ("cuGLInit", 2000, false),
                ("cuGLMapBufferObject", 2000, false),
                ("cuGLMapBufferObject_v2", 3020, false),
                ("cuGLMapBufferObject_v2_ptds", 7000, true)
            ]
        );
    }

    #[test]
    fn proc_names_drop_the_abi_suffix() {
        assert_eq!(proc_name("cuMemAlloc_v2"), "cuMemAlloc");
        assert_eq!(proc_name("cuCtxCreate_v3"), "cuCtxCreate");
        assert_eq!(proc_name("cuInit"), "cuInit");
        assert_eq!(proc_name("cuGraphInstantiateWithParams"), "cuGraphInstantiateWithParams");
    }
}
