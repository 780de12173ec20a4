//! Names for each surface, computed once (heck + keyword escaping). Templates only print them.

use crate::ir::{Enum, Library, Names};
use crate::profile::PythonConvention;
use heck::ToSnakeCase;

/// Rust keywords that need `r#` as identifiers (strict and reserved, 2024 edition). The one list
/// every surface uses, through [`rust_ident`].
const RUST_KEYWORDS: [&str; 48] = [
    "as", "break", "const", "continue", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in", "let", "loop",
    "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro", "override", "priv", "typeof",
    "unsized", "virtual", "yield", "try", "gen",
];
const PYTHON_KEYWORDS: [&str; 35] = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else",
    "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise",
    "return", "try", "while", "with", "yield",
];

/// An identifier usable in Rust: keywords get `r#`; names `r#` cannot take (`self`, `crate`,
/// `_`) get a trailing `_`; a leading digit gets `_`; the empty name is `_`.
pub fn rust_ident(s: &str) -> String {
    match s {
        "" => "_".into(),
        "self" | "Self" | "super" | "crate" | "_" => format!("{s}_"),
        _ if RUST_KEYWORDS.contains(&s) => format!("r#{s}"),
        _ if s.starts_with(|c: char| c.is_ascii_digit()) => format!("_{s}"),
        _ => s.to_string(),
    }
}

/// Parameter names that would shadow a Python builtin, renamed as NVIDIA's `cuda.bindings` does
/// so that keyword calls written for it keep working.
const PYTHON_SHADOWED: [(&str, &str); 5] =
    [("type", "typename"), ("len", "length"), ("format", "pformat"), ("bytes", "numbytes"), ("input", "input_")];

/// Python name of a function parameter: builtins it would shadow are renamed, keywords escaped.
pub fn python_param_ident(s: &str) -> String {
    match PYTHON_SHADOWED.iter().find(|(from, _)| *from == s) {
        Some((_, to)) => to.to_string(),
        None => python_ident(s),
    }
}

pub fn python_ident(s: &str) -> String {
    if PYTHON_KEYWORDS.contains(&s) {
        format!("{s}_")
    } else {
        s.to_string()
    }
}

/// `cuMemcpyHtoDAsync_v2` -> `memcpy_htod_async_v2`, `nvrtcGetPTX` -> `get_ptx`.
pub fn function_rust_name(prefix: &str, name: &str) -> String {
    rust_ident(&function_snake_name(prefix, name))
}

/// The snake_case name without the library prefix, not escaped (`nvvmIRVersion` -> `ir_version`).
fn function_snake_name(prefix: &str, name: &str) -> String {
    let bare = name.strip_prefix(prefix).unwrap_or(name);
    let mut s = bare.to_string();
    for (from, to) in [
        ("HtoD", "_Htod_"),
        ("DtoH", "_Dtoh_"),
        ("DtoD", "_Dtod_"),
        ("HtoA", "_Htoa_"),
        ("AtoH", "_Atoh_"),
        ("AtoD", "_Atod_"),
        ("DtoA", "_Dtoa_"),
        ("AtoA", "_Atoa_"),
        ("D2D8", "_d2d8_"),
        ("D2D16", "_d2d16_"),
        ("D2D32", "_d2d32_"),
        ("2D", "2d_"),
        ("3D", "3d_"),
        ("D8", "_d8_"),
        ("D16", "_d16_"),
        ("D32", "_d32_"),
        ("PTX", "Ptx"),
        ("CUBIN", "Cubin"),
        ("LTOIR", "Ltoir"),
        ("NVVM", "Nvvm"),
        ("PCH", "Pch"),
        ("OptiXIR", "Optixir"),
        ("IPC", "Ipc"),
    ] {
        s = s.replace(from, to);
    }
    let snake = s.to_snake_case();
    snake.split('_').filter(|p| !p.is_empty()).collect::<Vec<_>>().join("_")
}

/// Variant names without the enum's common `_`-separated prefix (`CUDA_SUCCESS` -> `SUCCESS`).
fn variant_names(e: &Enum) -> Vec<String> {
    let split: Vec<Vec<&str>> = e.variants.iter().map(|v| v.name.split('_').collect()).collect();
    let mut common = if split.len() > 1 { split[0].len() } else { 0 };
    for s in &split {
        common = common.min(s.len().saturating_sub(1));
        while common > 0 && s[..common] != split[0][..common] {
            common -= 1;
        }
    }
    split
        .iter()
        .map(|parts| {
            let n = parts[common..].join("_");
            if n.starts_with(|c: char| c.is_ascii_digit()) {
                format!("_{n}")
            } else {
                rust_ident(&n)
            }
        })
        .collect()
}

/// Record members that only hold memory for future versions of the API: `reserved`,
/// `internal`, `padding`, `unused`, each with an optional number (`reserved0`).
fn is_placeholder(field: &str) -> bool {
    ["reserved", "internal", "padding", "unused"]
        .iter()
        .any(|w| field.strip_prefix(w).is_some_and(|n| n.chars().all(|c| c.is_ascii_digit())))
}

/// First CUDA version whose Python surface follows cuda.bindings 13.x.
const CUDA_13: u32 = 13000;

/// The major version of cuda.bindings whose behaviour the Python surface of headers of
/// `cuda_version` follows (how records print): 13 from CUDA 13 on, else 12.
pub fn python_bindings_major(cuda_version: Option<u32>) -> u32 {
    if cuda_version.is_some_and(|v| v >= CUDA_13) {
        13
    } else {
        12
    }
}

/// Prefix of cudagen's own names in the Python record classes (the raw ctypes field behind a
/// property is `_cg_<name>`). A member whose Python name has it is in the C layout only: no
/// property, not printed, not in the stubs. (C's own `_oversize` stays public, as in cuda.bindings.)
pub const PYTHON_PRIVATE: &str = "_cg_";

/// First CUDA version whose cuda.bindings leaves placeholder members out of its classes (the
/// latest 13.4.x; 13.0.x to 13.3.x show them, NVIDIA's own tests of that time read them).
const PLACEHOLDERS_HIDDEN: u32 = 13040;

/// Python name of a record member. cuda.bindings (since 13.4.2) leaves placeholder members out of
/// its classes, so from CUDA 13.4 on they get a private name ([`PYTHON_PRIVATE`]); earlier
/// releases show them, as their cuda.bindings does.
pub fn python_field_ident(field: &str, cuda_version: Option<u32>) -> String {
    if python_private(field, cuda_version) {
        format!("{PYTHON_PRIVATE}{field}")
    } else {
        python_ident(field)
    }
}

/// Whether record member `field` is in the Python class's C layout only (`Field::python_private`).
fn python_private(field: &str, cuda_version: Option<u32>) -> bool {
    cuda_version.is_some_and(|v| v >= PLACEHOLDERS_HIDDEN) && is_placeholder(field)
}

pub fn run(lib: &mut Library, cuda_version: Option<u32>) {
    let profile = lib.profile();
    let prefix = profile.prefix.as_str();
    // cuda.bindings' `nvjitlink` / `nvvm` convention: snake_case functions and parameters, enums
    // and members without their prefixes (`nvJitLinkInputType.NVJITLINK_INPUT_LTOIR` ->
    // `InputType.LTOIR`). `driver` / `nvrtc` keep the C names.
    let snake = matches!(profile.python, PythonConvention::Exceptions { .. });
    for f in &mut lib.functions {
        let python = if snake { python_ident(&function_snake_name(prefix, &f.name)) } else { python_ident(&f.name) };
        f.names = Names { rust: function_rust_name(prefix, &f.name), python };
        for p in &mut f.params {
            let python = if snake { python_ident(&p.name.to_snake_case()) } else { python_param_ident(&p.name) };
            p.names = Names { rust: rust_ident(&p.name.to_snake_case()), python };
        }
    }
    for e in &mut lib.enums {
        let python = if snake { python_ident(e.name.strip_prefix(prefix).unwrap_or(&e.name)) } else { python_ident(&e.name) };
        e.names = Names { rust: e.name.clone(), python };
        let names = variant_names(e);
        for (v, n) in e.variants.iter_mut().zip(names) {
            let python = if snake { python_ident(n.trim_start_matches("r#")) } else { python_ident(&v.name) };
            v.names = Names { rust: n, python };
        }
        e.is_flags = e.name.to_ascii_lowercase().ends_with("flags");
    }
    for r in &mut lib.records {
        r.names = Names { rust: r.name.clone(), python: python_ident(&r.name) };
        for fld in &mut r.fields {
            fld.names = Names { rust: rust_ident(&fld.name), python: python_field_ident(&fld.name, cuda_version) };
            fld.python_private = python_private(&fld.name, cuda_version);
        }
    }
    for t in &mut lib.typedefs {
        t.names = Names { rust: t.name.clone(), python: python_ident(&t.name) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn function_names() {
        let d = crate::profile::kind("driver").prefix();
        assert_eq!(function_rust_name(d, "cuMemAlloc"), "mem_alloc");
        assert_eq!(function_rust_name(d, "cuMemcpyHtoDAsync"), "memcpy_htod_async");
        assert_eq!(function_rust_name(d, "cuMemcpy2DUnaligned"), "memcpy2d_unaligned");
        assert_eq!(function_rust_name(d, "cuMemsetD2D8Async"), "memset_d2d8_async");
        assert_eq!(function_rust_name(d, "cuCtxCreate_v3"), "ctx_create_v3");
        assert_eq!(function_rust_name(d, "cuDeviceGetName"), "device_get_name");
        assert_eq!(function_rust_name(crate::profile::kind("nvrtc").prefix(), "nvrtcGetPTXSize"), "get_ptx_size");
        assert_eq!(function_rust_name(crate::profile::kind("nvrtc").prefix(), "nvrtcGetCUBIN"), "get_cubin");
        assert_eq!(function_snake_name(crate::profile::kind("nvvm").prefix(), "nvvmIRVersion"), "ir_version");
        assert_eq!(
            function_snake_name(crate::profile::kind("nvjitlink").prefix(), "nvJitLinkGetLinkedCubinSize"),
            "get_linked_cubin_size"
        );
    }

    #[test]
    fn escapes() {
        assert_eq!(rust_ident("type"), "r#type");
        for reserved in ["gen", "try", "box", "yield"] {
            assert_eq!(rust_ident(reserved), format!("r#{reserved}"));
        }
        assert_eq!(rust_ident("self"), "self_");
        assert_eq!(rust_ident("_"), "__");
        assert_eq!(rust_ident(""), "_");
        assert_eq!(rust_ident("2d"), "_2d");
        assert_eq!(python_ident("lambda"), "lambda_");
        assert_eq!(python_param_ident("type"), "typename");
        assert_eq!(python_param_ident("input"), "input_");
        assert_eq!(python_param_ident("from"), "from_");
        assert_eq!(python_param_ident("ptr"), "ptr");
    }

    #[test]
    fn placeholder_members_are_private_in_python_from_cuda_13_4() {
        for f in ["reserved", "reserved1", "padding0", "internal", "unused2"] {
            assert_eq!(python_field_ident(f, Some(13040)), format!("_cg_{f}"));
            assert_eq!(python_field_ident(f, Some(13000)), f);
            assert_eq!(python_field_ident(f, Some(12090)), f);
        }
        for f in ["reservedSharedMemory", "pad", "unusedX", "lambda", "_internal_padding"] {
            assert!(!python_field_ident(f, Some(13050)).starts_with(PYTHON_PRIVATE), "{f}");
        }
        assert_eq!(python_field_ident("lambda", Some(13050)), "lambda_");
    }
}
