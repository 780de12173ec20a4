//! Fixture headers (one feature each) -> IR snapshot and the rendered Rust and Python surfaces
//! (the C surface is in `c_fixtures.rs`).
//! Review changes with `cargo insta review`.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Api, LibraryKind};
use cudagen_generator::{emit, parse, passes};
use cudagen_tests::{fixture, root};

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

macro_rules! fixture_test {
    ($name:ident, $kind:expr) => {
        #[test]
        fn $name() {
            let api = fixture(stringify!($name), $kind);
            insta::assert_yaml_snapshot!(concat!(stringify!($name), "_ir"), api.libraries[0]);
            insta::assert_snapshot!(concat!(stringify!($name), "_rust"), rendered(&api, "rust"));
            insta::assert_snapshot!(concat!(stringify!($name), "_python"), rendered(&api, "python"));
        }
    };
}

fixture_test!(status_enum, LibraryKind::Driver);
fixture_test!(out_param, LibraryKind::Driver);
fixture_test!(two_call_string, LibraryKind::Nvrtc);
fixture_test!(versioned_symbol, LibraryKind::Driver);
fixture_test!(ptds_ptsz, LibraryKind::Driver);
fixture_test!(opaque_handle, LibraryKind::Driver);
fixture_test!(flags_enum, LibraryKind::Driver);
fixture_test!(callback, LibraryKind::Driver);
fixture_test!(anonymous_union, LibraryKind::Driver);
fixture_test!(deprecated, LibraryKind::Driver);
fixture_test!(interop, LibraryKind::Driver);
fixture_test!(ownership, LibraryKind::Driver);

/// The interop fixture's decisions: plain API name over `_v2`, stand-in graphics types, ABI
/// versions from the companion's typedefs, the deprecated legacy function left out.
#[test]
fn interop_names_versions_and_stand_ins() {
    use cudagen_generator::ir::{Type, TypedefKind};
    let api = fixture("interop", LibraryKind::Driver);
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
    let err = parse::parse_library(LibraryKind::Driver, &bad, None).expect_err("must fail");
    let loc = err.location.clone().expect("location");
    assert_eq!((loc.file.as_str(), loc.line), ("cuda.h", 2), "{err}");
}

#[test]
fn annotation_naming_nothing_is_an_error() {
    let mut api = fixture("out_param", LibraryKind::Driver);
    let ann = cudagen_generator::annotations::LibraryAnnotations::parse(
        "cuda.toml",
        "[functions.cuMemGetInfo]\nnope = { role = \"out_value\" }\n",
    )
    .unwrap();
    let all = Annotations { libraries: [(LibraryKind::Driver, ann)].into() };
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
    let lib = parse::parse_library(LibraryKind::Driver, &h, None).unwrap();
    let r = lib.records.iter().find(|r| r.tag.as_deref() == Some("Op_st")).expect("record Op_st");
    let fields: Vec<(&str, u64)> = r.fields.iter().map(|f| (f.name.as_str(), f.offset_bits)).collect();
    assert_eq!((r.complete, r.size, fields), (true, 16, vec![("a", 0), ("b", 64)]));
    std::fs::remove_dir_all(&dir).unwrap();
}
