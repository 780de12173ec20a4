//! The fixture harness: every `tests/fixtures/*.h` (one feature each; `<name>_typedefs.h`,
//! companions and the annotations of `<name>.toml` join it) -> snapshots of its IR and of the
//! rendered Rust, Python and C surfaces; the C headers also compile as C99 and C++11 with
//! -Wall -Werror where gcc is installed. Adding a fixture is dropping a header (and its
//! annotation file) there. Review changes with `cargo insta review`.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::Api;
use cudagen_generator::{emit, parse, passes};
use cudagen_tests::{fixture, fixture_name, root};
use std::process::Command;

/// Contents of the files under `templates/<surface>/support`: shipped verbatim (after the
/// banner), not rendered from the fixture.
fn verbatim_texts(surface: &str) -> Vec<String> {
    fn walk(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                out.push(text);
            }
        }
    }
    let mut texts = Vec::new();
    walk(&root().join("templates").join(surface).join("support"), &mut texts);
    texts
}

/// All rendered files of one surface, concatenated with path headers.
fn rendered(api: &Api, surface: &str) -> String {
    let out = emit::generate(api, &root().join("templates")).expect("render");
    let verbatim = verbatim_texts(surface);
    out.files
        .iter()
        .filter(|(p, _)| p.starts_with(&format!("{surface}/")))
        // Rendered from the library profiles alone, the same for every fixture (regen --check and
        // the loader tests cover it).
        .filter(|(p, _)| p.as_str() != "rust/src/libraries.rs")
        .filter(|(_, t)| !verbatim.iter().any(|v| !v.is_empty() && t.ends_with(v.as_str())))
        .map(|(p, t)| format!("==> {p}\n{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every fixture: four snapshots, named `fixtures__<name>_{ir,rust,python}` and
/// `c_fixtures__<name>_c`. A failing fixture does not hide the others (insta reports them all).
#[test]
fn every_fixture_on_every_surface() {
    let mut seen = Vec::new();
    insta::glob!("fixtures/*.h", |header| {
        let Some(name) = fixture_name(header) else { return };
        let api = fixture(&name);
        let mut settings = insta::Settings::clone_current();
        settings.remove_snapshot_suffix();
        settings.set_prepend_module_to_snapshot(false);
        settings.bind(|| {
            insta::assert_yaml_snapshot!(format!("fixtures__{name}_ir"), api.libraries[0]);
            insta::assert_snapshot!(format!("fixtures__{name}_rust"), rendered(&api, "rust"));
            insta::assert_snapshot!(format!("fixtures__{name}_python"), rendered(&api, "python"));
            insta::assert_snapshot!(format!("c_fixtures__{name}_c"), c_surface(&name, &api));
        });
        seen.push(name);
    });
    // The fixture with a companion and the NVRTC one are found; what joins a fixture is not one.
    let found = |n: &str| seen.iter().any(|s| s == n);
    assert!(found("interop") && found("two_call_string"), "fixtures found: {seen:?}");
    assert!(!seen.iter().any(|s| s.ends_with("_typedefs") || s == "interop_gl"), "fixtures found: {seen:?}");
}

/// The C surface's rendered (not verbatim) files; checks that every function is on it and, where
/// gcc is installed, that its headers compile.
fn c_surface(name: &str, api: &Api) -> String {
    let out = emit::generate(api, &root().join("templates")).expect("render");
    let c_files: Vec<(&String, &String)> = out.files.iter().filter(|(p, _)| p.starts_with("c/")).collect();
    for l in out.coverage.libraries.values() {
        let emitted = l.surfaces.get("c").map(|s| s.emitted.clone()).unwrap_or_default();
        assert_eq!(emitted, l.functions, "{name}: every function is on the C surface");
    }
    if Command::new("gcc").arg("--version").output().is_ok() {
        gcc_accepts(name, &c_files);
    }
    let verbatim = ["c/README.md"];
    c_files
        .iter()
        .filter(|(p, _)| !verbatim.contains(&p.as_str()))
        // the CMake package files print only the CUDA version (regen --check and tests/c/install.sh cover them)
        .filter(|(p, _)| !p.starts_with("c/cmake/"))
        .map(|(p, t)| format!("==> {p}\n{t}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The rendered C headers compile as C99 and C++11 with -Wall -Wextra -Werror.
fn gcc_accepts(name: &str, c_files: &[(&String, &String)]) {
    let dir = std::env::temp_dir().join(format!("cudagen-cfix-{name}-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("include")).unwrap();
    let mut includes = String::new();
    for (p, text) in c_files {
        if let Some(h) = p.strip_prefix("c/include/") {
            std::fs::write(dir.join("include").join(h), text).unwrap();
            includes.push_str(&format!("#include <{h}>\n"));
        }
    }
    std::fs::write(dir.join("t.c"), format!("{includes}int main(void) {{ return 0; }}\n")).unwrap();
    for (std, lang) in [("c99", "c"), ("c++11", "c++")] {
        let o = Command::new("gcc")
            .args([&format!("-std={std}"), "-x", lang, "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I"])
            .arg(dir.join("include"))
            // graphics headers of the interop fixture: the parser's stand-ins
            .arg("-I")
            .arg(root().join("generator/src/clang/interop"))
            .arg(dir.join("t.c"))
            .output()
            .unwrap();
        assert!(o.status.success(), "{name} ({std}): {}", String::from_utf8_lossy(&o.stderr));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The interop fixture's decisions: plain API name over `_v2`, stand-in graphics types, ABI
/// versions from the companion's typedefs, the deprecated legacy function left out.
#[test]
fn interop_names_versions_and_stand_ins() {
    use cudagen_generator::ir::{Type, TypedefKind};
    let api = fixture("interop");
    let lib = &api.libraries[0];
    let f = lib.function("cuStreamGetCaptureInfo").expect("plain API name");
    assert_eq!((f.symbol.as_str(), f.version), ("cuStreamGetCaptureInfo_v2", Some(11030)));
    assert_eq!(
        f.variants.iter().map(|v| (v.symbol.as_str(), v.version)).collect::<Vec<_>>(),
        [("cuStreamGetCaptureInfo_v2_ptsz", Some(11030))]
    );
    assert_eq!(f.variants[0].also_named, ["cuStreamGetCaptureInfo_v2"], "per-thread builds map the _v2 name too (C only)");
    assert!(lib.functions.iter().all(|f| !f.name.ends_with("_v2")), "no _vN API name");
    assert_eq!(lib.function("cuGraphicsGLRegisterBuffer").and_then(|f| f.version), Some(3000));
    assert!(lib.function("cuGLCtxCreate").is_none() && lib.skipped.is_empty(), "{:?}", lib.skipped);
    let vdp = lib.function("cuVDPAUGetDevice").expect("companion function");
    assert_eq!(vdp.version, Some(3010));
    assert_eq!(vdp.param("vdpGetProcAddress").unwrap().ty, Type::named("VdpGetProcAddress"), "pointer to a function typedef");
    assert!(matches!(lib.typedef("VdpGetProcAddress").unwrap().kind, TypedefKind::Callback { .. }));
    let gluint = lib.typedef("GLuint").expect("stand-in type");
    assert_eq!((gluint.location.file.as_str(), &gluint.target), ("gl.h", &Type::prim(cudagen_generator::ir::Prim::UInt)));
    assert_eq!(
        lib.headers.iter().map(|h| h.file.as_str()).collect::<Vec<_>>(),
        ["interop.h", "interop_typedefs.h", "interop_gl.h", "interop_gl_typedefs.h"]
    );
    assert_eq!(lib.headers[2].includes, ["GL/gl.h", "vdpau/vdpau.h"]);
    assert!(lib.macros.iter().any(|m| m.name == "MAX_PLANES" && m.location.file == "interop_gl.h"));
}

#[test]
fn malformed_header_is_an_error_with_location() {
    let dir = std::env::temp_dir().join(format!("cudagen-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("cuda.h");
    std::fs::write(&bad, "typedef enum { A = 0 } CUresult;\nCUresult cuBroken(int x, ;\n").unwrap();
    let err = parse::parse_library(cudagen_tests::kind("driver"), &bad, None).expect_err("must fail");
    let loc = err.location.clone().expect("location");
    assert_eq!((loc.file.as_str(), loc.line), ("cuda.h", 2), "{err}");
}

#[test]
fn annotation_naming_nothing_is_an_error() {
    let mut api = fixture("out_param");
    let ann = cudagen_generator::annotations::LibraryAnnotations::parse(
        "cuda.toml",
        "[functions.cuMemGetInfo]\nnope = { role = \"out_value\" }\n",
    )
    .unwrap();
    let all = Annotations { libraries: [(cudagen_tests::kind("driver"), ann)].into() };
    let err = passes::run_all(&mut api, &all).expect_err("must fail");
    assert!(err.to_string().contains("cuda.toml:1"), "{err}");
    assert!(err.to_string().contains("nope"), "{err}");
}

#[test]
fn malformed_annotation_file_is_an_error_with_line() {
    let err = cudagen_generator::annotations::LibraryAnnotations::parse("cuda.toml", "[functions.x]\ny = { role = 3 }\n")
        .expect_err("must fail");
    assert_eq!(err.location.map(|l| l.line), Some(2));
}

#[test]
fn a_record_declared_before_its_definition_gets_its_fields() {
    // CUDA 13.5 declares `typedef struct CUDA_FABRIC_COPY_BATCH_OP_st ..._v1;` long before the struct.
    let dir = std::env::temp_dir().join(format!("cudagen-later-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let h = dir.join("cuda.h");
    std::fs::write(
        &h,
        "typedef enum cudaError_enum { CUDA_SUCCESS = 0 } CUresult;\ntypedef struct Op_st Op_v1;\ntypedef Op_v1 Op;\n\
         CUresult cuUse(Op *op);\nstruct Op_st { int a; long long b; };\n",
    )
    .unwrap();
    let lib = parse::parse_library(cudagen_tests::kind("driver"), &h, None).unwrap();
    let r = lib.records.iter().find(|r| r.tag.as_deref() == Some("Op_st")).expect("record Op_st");
    let fields: Vec<(&str, u64)> = r.fields.iter().map(|f| (f.name.as_str(), f.offset_bits)).collect();
    assert_eq!((r.complete, r.size, fields), (true, 16, vec![("a", 0), ("b", 64)]));
    std::fs::remove_dir_all(&dir).unwrap();
}
