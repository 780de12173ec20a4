//! Tables over a static archive linked into the crate (`Table::linked`, the `static-cudart`
//! feature of the generated crate): entries come from the linked functions unless the library's
//! override variable names a shared library, decided once per process. Each case runs in a
//! child process, since that decision is process-wide.

use cudagen_loader_tests::{is_child, loader::*, run_child};
use std::ffi::{c_int, c_void};

static ENTRIES: [Entry; 2] = [
    Entry { symbol: "cudaGetDevice", proc_name: "cudaGetDevice", version: 0, per_thread: false, fallbacks: &[] },
    Entry { symbol: "cudaGetDeviceCount", proc_name: "cudaGetDeviceCount", version: 0, per_thread: false, fallbacks: &[] },
];

/// Stand-ins for the archive's entries: each writes its own number.
unsafe extern "C" fn linked_get_device(out: *mut c_int) -> c_int {
    *out = 7;
    0
}
unsafe extern "C" fn linked_get_device_count(out: *mut c_int) -> c_int {
    *out = 3;
    0
}

static LINKED: [Linked; 2] = [
    // SAFETY: only the address is kept; calls cast it back to the prototype it was made from.
    unsafe { std::mem::transmute::<unsafe extern "C" fn(*mut c_int) -> c_int, Linked>(linked_get_device) },
    unsafe { std::mem::transmute::<unsafe extern "C" fn(*mut c_int) -> c_int, Linked>(linked_get_device_count) },
];
static TABLE: Table<2> = Table::new(RUNTIME, &ENTRIES).linked(&LINKED);

fn call(table: &Table<2>, index: usize) -> Result<c_int, LoadError> {
    let p = table.get(index)?;
    // SAFETY: both stand-ins have this prototype.
    let f: unsafe extern "C" fn(*mut c_int) -> c_int = unsafe { std::mem::transmute::<*const c_void, _>(p) };
    let mut out = 0;
    assert_eq!(unsafe { f(&mut out) }, 0);
    Ok(out)
}

#[test]
fn linked_entries_are_used_without_the_override() {
    if !is_child() {
        run_child("linked_entries_are_used_without_the_override", &[]);
        return;
    }
    assert!(linked_in(RUNTIME));
    assert_eq!(call(&TABLE, 0).unwrap(), 7);
    assert_eq!(call(&TABLE, 1).unwrap(), 3);
    // the resolved slot is cached: the same address on the fast path
    assert_eq!(TABLE.peek(0), Some(linked_get_device as *const c_void));
}

#[test]
fn the_override_loads_a_shared_library_instead() {
    if !is_child() {
        run_child("the_override_loads_a_shared_library_instead", &[("CUDAGEN_CUDART_PATH", "/nonexistent/libcudart.so.12")]);
        return;
    }
    assert!(!linked_in(RUNTIME));
    let e = call(&TABLE, 0).unwrap_err();
    assert!(e.library_missing(), "{e}");
    assert!(e.to_string().contains("/nonexistent/libcudart.so.12"), "{e}");
}
