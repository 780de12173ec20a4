//! Adding a library is one folder: the toy library `tests/fixtures/libraries/toy/` (its
//! `library.toml`, `annotations.toml` and header `toy.h`) goes through the same parse, passes and
//! renderers as the driver and NVRTC, and every one of its functions comes out typed on the Rust,
//! Python and C surfaces. Nothing outside the folder names it.

use cudagen_generator::ir::{DecidedBy, LibraryKind, Role};
use cudagen_generator::profile::Registry;
use cudagen_generator::{build_library, emit};
use cudagen_tests::root;

/// The toy, loaded from its folder's root (the only root this test process loads).
fn toy() -> LibraryKind {
    let kinds = Registry::load_root(&root().join("tests/fixtures/libraries")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(kinds.iter().map(|k| k.id()).collect::<Vec<_>>(), ["toy"]);
    kinds[0]
}

const FUNCTIONS: [&str; 5] = ["toyCounterAdd", "toyCounterCreate", "toyCounterDestroy", "toyCounterGet", "toyGetName"];

#[test]
fn a_toy_library_comes_out_on_every_surface() {
    let toy = toy();
    assert_eq!(LibraryKind::all().collect::<Vec<_>>(), [toy], "no other library is loaded");
    let api = build_library(toy, &toy.profile().dir).unwrap_or_else(|e| panic!("{e}"));
    let lib = &api.libraries[0];
    let name = lib.function("toyGetName").and_then(|f| f.param("name")).expect("toyGetName(name)");
    let read = matches!(&name.role, Role::OutBuffer { len: Some(l), string: true, capacity: Some(64), .. } if l == "len");
    assert!(read && name.decided_by == DecidedBy::Annotation, "annotations.toml is read: {:?}", name.role);

    let out = emit::generate(&api, &root().join("templates")).unwrap_or_else(|e| panic!("{e}"));
    for (surface, file) in [("rust", "rust/src/toy/mod.rs"), ("python", "python/src/toy.rs"), ("c", "c/src/toy.rs")] {
        let text = out.files.get(file).unwrap_or_else(|| panic!("{surface}: no {file}"));
        let coverage = &out.coverage.libraries[&toy];
        let emitted: Vec<&str> = coverage.surfaces[surface].emitted.iter().map(String::as_str).collect();
        assert_eq!(emitted, FUNCTIONS, "{surface}: every function, typed (coverage reads {file} back)");
        assert!(coverage.surfaces[surface].skipped.is_empty(), "{surface}: {:?}", coverage.surfaces[surface].skipped);
        assert!(FUNCTIONS.iter().all(|f| text.contains(f)), "{surface}: {file} names every function");
    }
    assert!(out.files["c/include/toy.h"].contains("toyStatus toyCounterAdd(toyCounter counter, int amount);"));
    let stub = &out.files["python/python/cudagen/_cudagen.pyi"];
    assert!(
        stub.contains("\ntoy: ModuleType\n") && stub.contains("\"toy\"]"),
        "the extension's stub names the toy module:\n{stub}"
    );
}

#[test]
fn a_profile_whose_header_is_missing_is_an_error() {
    let e = build_library(toy(), &root().join("tests")).unwrap_err();
    assert!(e.to_string().ends_with("no toy.h"), "{e}");
}
