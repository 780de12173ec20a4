//! Fixture headers (one feature each) -> IR snapshot and rendered Rust snapshot.
//! Review changes with `cargo insta review`.

use cudagen_generator::annotations::Annotations;
use cudagen_generator::ir::{Api, LibraryKind};
use cudagen_generator::{emit, parse, passes};
use cudagen_tests::{fixture, root};

/// All rendered files of one surface, concatenated with path headers.
fn rendered(api: &Api, surface: &str) -> String {
    let out = emit::generate(api, &root().join("templates")).expect("render");
    out.files
        .iter()
        .filter(|(p, _)| p.starts_with(&format!("{surface}/")))
        // Verbatim support files (loader, tracer, helpers) are not rendered from the fixture.
        .filter(|(p, _)| !["/loader", "/trace", "/util.rs"].iter().any(|s| p.contains(s)))
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
    let all = Annotations { driver: ann, ..Default::default() };
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
