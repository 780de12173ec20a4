//! Versioned entries over real nvJitLink libraries older (or of another major) than the header:
//! the loader binds the newest earlier release's export the library has, else the unversioned
//! one, says so in `rebound()` and the trace, and names what is missing when none exists.
//! The libraries are the NVIDIA wheels' (`.cache/nvjitlink/<release>/`, fetched by `cargo xtask
//! test`); a missing one fails the test, so CI cannot pass without them.

use cudagen_loader_tests::{is_child, loader::*, run_child};
use std::ffi::{c_char, c_void};
use std::path::PathBuf;

/// `nvJitLinkCreate` and `nvJitLinkDestroy` as the 12.9 header's entries, newest first.
static ENTRIES_12_9: [Entry; 2] = [
    Entry::new("__nvJitLinkCreate_12_9", "__nvJitLinkCreate_12_9", 12090, false).or(&[
        "__nvJitLinkCreate_12_8",
        "__nvJitLinkCreate_12_7",
        "__nvJitLinkCreate_12_6",
        "__nvJitLinkCreate_12_5",
        "__nvJitLinkCreate_12_4",
        "__nvJitLinkCreate_12_3",
        "__nvJitLinkCreate_12_2",
        "__nvJitLinkCreate_12_1",
        "__nvJitLinkCreate_12_0",
        "nvJitLinkCreate",
    ]),
    Entry::new("__nvJitLinkDestroy_12_9", "__nvJitLinkDestroy_12_9", 12090, false)
        .or(&["__nvJitLinkDestroy_12_4", "nvJitLinkDestroy"]),
];
static TABLE_12_9: Table<2> = Table::with_sonames(NVJITLINK, &ENTRIES_12_9, &["libnvJitLink.so.12"]);

/// The same functions as the 13.5 header's entries.
static ENTRIES_13_5: [Entry; 2] = [
    Entry::new("__nvJitLinkCreate_13_5", "__nvJitLinkCreate_13_5", 13050, false).or(&[
        "__nvJitLinkCreate_13_4",
        "__nvJitLinkCreate_13_3",
        "__nvJitLinkCreate_13_2",
        "__nvJitLinkCreate_13_1",
        "__nvJitLinkCreate_13_0",
        "nvJitLinkCreate",
    ]),
    Entry::new("__nvJitLinkDestroy_13_5", "__nvJitLinkDestroy_13_5", 13050, false)
        .or(&["__nvJitLinkDestroy_13_0", "nvJitLinkDestroy"]),
];
static TABLE_13_5: Table<2> = Table::with_sonames(NVJITLINK, &ENTRIES_13_5, &["libnvJitLink.so.13"]);

/// A function no release exports, with fallbacks that do not exist either.
static ENTRIES_MISSING: [Entry; 1] = [Entry::new("__nvJitLinkNoSuch_13_1", "__nvJitLinkNoSuch_13_1", 13010, false)
    .or(&["__nvJitLinkNoSuch_13_0", "nvJitLinkNoSuch"])];
static TABLE_MISSING: Table<1> = Table::with_sonames(NVJITLINK, &ENTRIES_MISSING, &["libnvJitLink.so.13"]);

type Create = unsafe extern "C" fn(*mut *mut c_void, u32, *const *const c_char) -> i32;
type Destroy = unsafe extern "C" fn(*mut *mut c_void) -> i32;

/// `libnvJitLink.so.*` of `release` in the repository's `.cache/`.
fn library(release: &str) -> String {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.cache/nvjitlink").join(release);
    let found = std::fs::read_dir(&dir).ok().into_iter().flatten().flatten().map(|e| e.path());
    let lib = found.into_iter().find(|p| p.to_string_lossy().contains("libnvJitLink.so"));
    let lib = lib.unwrap_or_else(|| panic!("no libnvJitLink in {} (run `cargo xtask test` to fetch it)", dir.display()));
    lib.to_string_lossy().into_owned()
}

/// Creates and destroys a linker through the table's entries: the bound exports are callable.
fn create_and_destroy(table: &Table<2>) {
    let create: Create = unsafe { std::mem::transmute(table.get(0).expect("create binds")) };
    let destroy: Destroy = unsafe { std::mem::transmute(table.get(1).expect("destroy binds")) };
    let arch = c"-arch=sm_90";
    let mut handle = std::ptr::null_mut();
    assert_eq!(unsafe { create(&mut handle, 1, &arch.as_ptr()) }, 0, "nvJitLinkCreate");
    assert!(!handle.is_null());
    assert_eq!(unsafe { destroy(&mut handle) }, 0, "nvJitLinkDestroy");
}

fn bound(symbol: &str) -> Option<&'static str> {
    rebound().into_iter().find(|r| r.symbol == symbol).map(|r| r.bound)
}

#[test]
fn a_12_9_header_over_the_12_4_library_binds_its_12_4_exports() {
    if !is_child() {
        run_child("a_12_9_header_over_the_12_4_library_binds_its_12_4_exports", &[("CUDAGEN_NVJITLINK_PATH", &library("12.4"))]);
        return;
    }
    create_and_destroy(&TABLE_12_9);
    assert_eq!(bound("__nvJitLinkCreate_12_9"), Some("__nvJitLinkCreate_12_4"));
    assert_eq!(bound("__nvJitLinkDestroy_12_9"), Some("__nvJitLinkDestroy_12_4"));
    let b = TABLE_12_9.bind_all();
    assert_eq!((b.bound, b.entries), (2, 2));
    assert!(b.path.is_some_and(|p| p.contains("12.4")));
}

#[test]
fn a_12_9_header_over_a_13_library_binds_the_unversioned_exports() {
    if !is_child() {
        run_child(
            "a_12_9_header_over_a_13_library_binds_the_unversioned_exports",
            &[("CUDAGEN_NVJITLINK_PATH", &library("13.0"))],
        );
        return;
    }
    create_and_destroy(&TABLE_12_9);
    assert_eq!(bound("__nvJitLinkCreate_12_9"), Some("nvJitLinkCreate"));
    assert_eq!(bound("__nvJitLinkDestroy_12_9"), Some("nvJitLinkDestroy"));
}

#[test]
fn a_13_5_header_over_the_13_0_library_binds_its_13_0_exports_and_traces_it() {
    if !is_child() {
        let trace = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("jitlink_fallbacks.trace");
        let _ = std::fs::remove_file(&trace);
        let name = "a_13_5_header_over_the_13_0_library_binds_its_13_0_exports_and_traces_it";
        let trace_file = trace.to_str().unwrap();
        run_child(
            name,
            &[("CUDAGEN_NVJITLINK_PATH", &library("13.0")), ("CUDAGEN_TRACE", "1"), ("CUDAGEN_TRACE_FILE", trace_file)],
        );
        let text = std::fs::read_to_string(&trace).expect("trace written");
        let line = text.lines().find(|l| l.contains("cudagen.bind(symbol=\"__nvJitLinkCreate_13_5\")"));
        assert!(line.is_some_and(|l| l.contains("\"__nvJitLinkCreate_13_0\"")), "no bind line in:\n{text}");
        return;
    }
    create_and_destroy(&TABLE_13_5);
    assert_eq!(bound("__nvJitLinkCreate_13_5"), Some("__nvJitLinkCreate_13_0"));
    assert!(rebound().iter().all(|r| r.library == NVJITLINK && r.path.contains("13.0")));
}

#[test]
fn an_entry_no_export_has_names_every_export_tried_and_the_headers_release() {
    if !is_child() {
        run_child(
            "an_entry_no_export_has_names_every_export_tried_and_the_headers_release",
            &[("CUDAGEN_NVJITLINK_PATH", &library("13.0"))],
        );
        return;
    }
    let e = TABLE_MISSING.get(0).unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("__nvJitLinkNoSuch_13_1 (CUDA 13.1) not found in "), "{text}");
    assert!(
        text.ends_with(", nor its other exports __nvJitLinkNoSuch_13_0, nvJitLinkNoSuch: the library predates the function (the CUDA 13.1 headers declare it)"),
        "{text}"
    );
    assert!(rebound().is_empty());
}
