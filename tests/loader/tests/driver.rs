//! Driver loading scenarios; each runs in its own process (see `run_child`).

use cudagen_loader_tests::{build_fake, is_child, loader::*, run_child};
use std::path::PathBuf;
use std::time::Instant;

static ENTRIES: [Entry; 6] = [
    Entry {
        symbol: "cuFake",
        proc_name: "cuFake",
        version: 3020,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuFake",
        proc_name: "cuFake",
        version: 999,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuFake_v9",
        proc_name: "cuFake",
        version: 12050,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuMissing_v2",
        proc_name: "cuMissing",
        version: 3020,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuFlags",
        proc_name: "cuFlags",
        version: 7000,
        per_thread: false,
        fallbacks: &[],
    },
    Entry {
        symbol: "cuFlags_ptds",
        proc_name: "cuFlags",
        version: 7000,
        per_thread: true,
        fallbacks: &[],
    },
];
static TABLE: Table<6> = Table::new(DRIVER, &ENTRIES);

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Average ns per `TABLE.get(i)` over `n` calls.
fn ns_per_get(i: usize, n: u32) -> f64 {
    let t = Instant::now();
    for _ in 0..n {
        let _ = std::hint::black_box(TABLE.get(std::hint::black_box(i)));
    }
    t.elapsed().as_nanos() as f64 / n as f64
}

#[test]
fn driver_missing() {
    if !is_child() {
        let out = run_child(
            "driver_missing",
            &[("LD_LIBRARY_PATH", "/nonexistent/a:/nonexistent/b")],
        );
        println!("{out}");
        return;
    }
    let e = TABLE.get(0).unwrap_err();
    let msg = e.to_string();
    println!("message: {msg}");
    assert!(e.library_missing());
    assert_eq!(e.symbol(), Some("cuFake"));
    assert_eq!(e.version(), Some(3020));
    assert!(msg.starts_with("libcuda.so.1 not found (needed for cuFake, CUDA 3.2); looked in: libcuda.so.1 (not found)"), "{msg}");
    for p in [
        "/nonexistent/a/libcuda.so.1",
        "/usr/lib64/libcuda.so.1",
        "/usr/local/nvidia/lib64/libcuda.so.1",
        "/usr/lib/wsl/lib/libcuda.so.1",
        "/usr/local/cuda/compat/libcuda.so.1",
        "CUDAGEN_LIBCUDA",
    ] {
        assert!(msg.contains(p), "{p} missing from {msg}");
    }
    assert_eq!(last_error_message().as_deref(), Some(msg.as_str()));
    assert_eq!(driver_version(), None);
    for i in 0..6 {
        assert!(TABLE.get(i).unwrap_err().library_missing());
    }
    assert!(TABLE.get(99).is_err());
    let ns = ns_per_get(0, 200_000);
    println!("RESULT repeated get() with driver missing: {ns:.1} ns/call");
    assert!(ns < 5_000.0);
}

#[test]
fn fake_driver() {
    if !is_child() {
        let so = build_fake("fake_driver", &tmp("fake_driver"), "libfakecuda.so");
        let out = run_child("fake_driver", &[("CUDAGEN_LIBCUDA", so.to_str().unwrap())]);
        println!("{out}");
        return;
    }
    let so = std::env::var("CUDAGEN_LIBCUDA").unwrap();
    // Resolved through cuGetProcAddress_v2, callable.
    let p = TABLE.get(0).unwrap();
    let f: unsafe extern "C" fn(i32) -> i32 = unsafe { std::mem::transmute(p) };
    assert_eq!(unsafe { f(1) }, 43);
    assert_eq!(TABLE.get(0).unwrap(), p);
    assert_eq!(driver_version(), Some(12040));
    // The driver answers VERSION_NOT_SUFFICIENT.
    let e = TABLE.get(1).unwrap_err();
    println!("version 999: {e}");
    assert!(!e.library_missing() && e.version() == Some(999));
    assert_eq!(
        e.to_string(),
        format!("cuFake (CUDA 0.99) not available in {so} (driver 12.4): needs CUDA 0.99")
    );
    // Newer than the driver: refused before asking (it would return an older ABI).
    let e = TABLE.get(2).unwrap_err();
    println!("version 12050: {e}");
    assert_eq!(
        e.to_string(),
        format!("cuFake_v9 (CUDA 12.5) not available in {so} (driver 12.4): needs CUDA 12.5")
    );
    // Unknown symbol.
    let e = TABLE.get(3).unwrap_err();
    println!("missing: {e}");
    assert_eq!(
        e.to_string(),
        format!("cuMissing_v2 (CUDA 3.2) not found in {so} (driver 12.4)")
    );
    assert_eq!(
        (e.symbol(), e.version(), e.cuda_error_code()),
        (Some("cuMissing_v2"), Some(3020), 500)
    );
    assert_eq!(last_error_message().unwrap(), e.to_string());
    // Cached failure, re-reported the same way.
    assert_eq!(TABLE.get(3).unwrap_err().to_string(), e.to_string());
    // Flags: legacy (1) vs per-thread (2).
    let call = |i| unsafe {
        std::mem::transmute::<*const std::ffi::c_void, unsafe extern "C" fn() -> i32>(
            TABLE.get(i).unwrap(),
        )()
    };
    assert_eq!((call(4), call(5)), (1, 2));
    // Failure is per-thread-recorded too.
    std::thread::spawn(|| assert!(last_error_message().unwrap().contains("cuMissing_v2")))
        .join()
        .unwrap();
    println!(
        "RESULT get() cached-miss: {:.1} ns/call, hit: {:.2} ns/call",
        ns_per_get(3, 200_000),
        ns_per_get(0, 10_000_000)
    );
}

#[test]
fn shim_skipped_in_search() {
    if !is_child() {
        let shim = build_fake("fake_shim", &tmp("shimdir"), "libcuda.so.1");
        let real = build_fake("fake_driver", &tmp("realdir"), "libcuda.so.1");
        let path = format!(
            "{}:{}",
            shim.parent().unwrap().display(),
            real.parent().unwrap().display()
        );
        let out = run_child("shim_skipped_in_search", &[("CUDAGEN_TEST_PATH", &path)]);
        println!("{out}");
        return;
    }
    // Set in-process: the loader reads LD_LIBRARY_PATH itself (ld.so would have cached it).
    std::env::set_var(
        "LD_LIBRARY_PATH",
        std::env::var("CUDAGEN_TEST_PATH").unwrap(),
    );
    let p = TABLE.get(0).unwrap();
    let f: unsafe extern "C" fn(i32) -> i32 = unsafe { std::mem::transmute(p) };
    assert_eq!(
        unsafe { f(0) },
        42,
        "resolved from the shim instead of the driver"
    );
    assert_eq!(driver_version(), Some(12040));
    let e = TABLE.get(3).unwrap_err();
    assert!(
        e.library_path().unwrap().ends_with("realdir/libcuda.so.1"),
        "{e}"
    );
    assert!(
        e.looked_in()
            .iter()
            .any(|l| l.contains("shimdir/libcuda.so.1 (is the cudagen shim, skipped)")),
        "{:?}",
        e.looked_in()
    );
    println!("looked: {:?}", e.looked_in());
}

#[test]
fn shim_only_is_an_error() {
    if !is_child() {
        let shim = build_fake("fake_shim", &tmp("shimonly"), "libcuda.so.1");
        let out = run_child(
            "shim_only_is_an_error",
            &[("CUDAGEN_LIBCUDA", shim.to_str().unwrap())],
        );
        println!("{out}");
        return;
    }
    let e = TABLE.get(0).unwrap_err();
    println!("message: {e}");
    assert!(e.library_missing());
    assert!(e.to_string().contains("(is the cudagen shim, skipped)"));
    assert!(e.to_string().contains("$CUDAGEN_LIBCUDA="));
}

#[test]
fn old_driver_uses_dlsym() {
    if !is_child() {
        let so = build_fake("fake_old_driver", &tmp("olddrv"), "libcuda.so.1");
        let out = run_child(
            "old_driver_uses_dlsym",
            &[("CUDAGEN_LIBCUDA", so.to_str().unwrap())],
        );
        println!("{out}");
        return;
    }
    static OLD: [Entry; 2] = [
        Entry {
            symbol: "cuFake_v2",
            proc_name: "cuFake",
            version: 3020,
            per_thread: false,
            fallbacks: &[],
        },
        Entry {
            symbol: "cuGone",
            proc_name: "cuGone",
            version: 3020,
            per_thread: false,
            fallbacks: &[],
        },
    ];
    static T: Table<2> = Table::new(DRIVER, &OLD);
    let f: unsafe extern "C" fn(i32) -> i32 = unsafe { std::mem::transmute(T.get(0).unwrap()) };
    assert_eq!(unsafe { f(1) }, 2);
    let e = T.get(1).unwrap_err();
    println!("message: {e}");
    assert!(
        e.to_string().contains("cuGone (CUDA 3.2) not found in")
            && e.to_string().contains("(driver 11.2)")
    );
}
