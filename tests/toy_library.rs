//! Adding a library is one `LibraryProfile` and one annotation file: a toy library
//! (`tests/fixtures/toy/toy.h`, annotations `toy.toml`) described by the profile below goes
//! through the same parse, passes and renderers as the driver and NVRTC, and every one of its
//! functions comes out typed on the Rust, Python and C surfaces. (A real library also gets its
//! `LibraryKind` variant; the toy borrows NVRTC's, whose loader resolves by `dlsym` too.)

use cudagen_generator::annotations::LibraryAnnotations;
use cudagen_generator::ir::{DecidedBy, LibraryKind, Role};
use cudagen_generator::profile::{LibraryProfile, LoaderProfile, PythonConvention, Resolve, StatusNames};
use cudagen_generator::{build_library, emit};
use cudagen_tests::root;

static TOY: LibraryProfile = LibraryProfile {
    kind: LibraryKind::Nvrtc,
    variant: "Toy",
    module: "toy",
    prefix: "toy",
    header: "toy.h",
    typedefs: None,
    companions: &[],
    declares: &[],
    annotations: "toy.toml",
    status_enum: "toyStatus",
    status: StatusNames {
        success: ("TOY_SUCCESS", 0),
        library_missing: ("TOY_ERROR_NOT_FOUND", 2),
        symbol_missing: ("TOY_ERROR_NOT_FOUND", 2),
        invalid_argument: ("TOY_ERROR_INVALID_VALUE", 1),
        internal: ("TOY_ERROR_UNKNOWN", 3),
    },
    c_template: "c/library.h.tera",
    c_guard: "TOY_H",
    c_marker: "CUDAGEN_TOY_H",
    callconv: "",
    c_record_guards: &[],
    resolver: None,
    cudarc: false,
    python: PythonConvention::Tuple,
    python_helpers: None,
    loader: LoaderProfile {
        sonames: &["libtoy.so.1"],
        override_var: "CUDAGEN_LIBTOY",
        path_vars: &["LD_LIBRARY_PATH"],
        home_vars: &[],
        home_lib: "lib",
        dirs: &[],
        wheel_dirs: &[],
        resolve: Resolve::Dlsym,
        skip_shim: false,
        static_link: None,
    },
};

const FUNCTIONS: [&str; 5] = ["toyCounterAdd", "toyCounterCreate", "toyCounterDestroy", "toyCounterGet", "toyGetName"];

#[test]
fn a_toy_library_comes_out_on_every_surface() {
    let dir = root().join("tests/fixtures/toy");
    let ann = LibraryAnnotations::load_optional(&dir.join(TOY.annotations)).unwrap();
    let api = build_library(&TOY, &dir, ann).unwrap_or_else(|e| panic!("{e}"));
    let lib = &api.libraries[0];
    let name = lib.function("toyGetName").and_then(|f| f.param("name")).expect("toyGetName(name)");
    let read = matches!(&name.role, Role::OutBuffer { len: Some(l), string: true, capacity: Some(64), .. } if l == "len");
    assert!(read && name.decided_by == DecidedBy::Annotation, "toy.toml is read: {:?}", name.role);

    let out = emit::generate(&api, &root().join("templates")).unwrap_or_else(|e| panic!("{e}"));
    for (surface, file) in [("rust", "rust/src/toy/mod.rs"), ("python", "python/src/toy.rs"), ("c", "c/src/toy.rs")] {
        let text = out.files.get(file).unwrap_or_else(|| panic!("{surface}: no {file}"));
        let coverage = &out.coverage.libraries[&TOY.kind];
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
    let e = build_library(&TOY, &root().join("tests"), LibraryAnnotations::default()).unwrap_err();
    assert!(e.to_string().ends_with("no toy.h"), "{e}");
}
