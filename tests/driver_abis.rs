//! ABIs of one name that share a prototype but not a meaning (`cuEventElapsedTime` and
//! `cuEventElapsedTime_v2`, `cuDeviceGetUuid` and `_v2`): each symbol binds its own ABI, asked
//! at its own version, against a fake libcuda keeping both (`tests/loader/fake/fake_abi_driver.c`).
//! A driver older than the newer ABI still binds the older symbol, and the newer one's error
//! names the version it needs. Each scenario runs in its own process (the loader is process-wide).

use cudagen::driver::{sys, CUdevice, CUevent, CUresult, CUuuid};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// In the parent: re-runs this binary for test `name` alone with the fake driver reporting
/// `version`, and checks it passed. In the child: returns false, so the test body runs.
fn parent_runs(name: &str, version: &str) -> bool {
    if std::env::var_os("CUDAGEN_TEST_CHILD").is_some() {
        return false;
    }
    // Built once per process: the tests run in parallel and would write the same file.
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    let lib = LIB.get_or_init(|| cudagen_tests::fake_libcuda("fake_abi_driver", env!("CARGO_TARGET_TMPDIR").as_ref()));
    let out = Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("CUDAGEN_TEST_CHILD", "1")
        .env("CUDAGEN_LIBCUDA", lib)
        .env("FAKE_DRIVER_VERSION", version)
        .env_remove("CUDAGEN_TRACE")
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "child {name} failed:\n{text}");
    true
}

/// Which ABI answered: 1.0 for v1, 2.0 for v2, or the status of a call that could not run.
fn elapsed(v2: bool) -> Result<f32, CUresult> {
    let mut ms = 0.0f32;
    let (a, b) = (CUevent::default(), CUevent::default());
    // SAFETY: the fake writes one float and reads nothing else.
    let rc = unsafe {
        if v2 {
            sys::cuEventElapsedTime_v2(&mut ms, a, b)
        } else {
            sys::cuEventElapsedTime(&mut ms, a, b)
        }
    };
    if rc == CUresult::SUCCESS {
        Ok(ms)
    } else {
        Err(rc)
    }
}

fn uuid(v2: bool) -> Result<i32, CUresult> {
    let mut u = CUuuid::default();
    // SAFETY: the fake writes the first byte of the record.
    let rc = unsafe {
        if v2 {
            sys::cuDeviceGetUuid_v2(&mut u, CUdevice::default())
        } else {
            sys::cuDeviceGetUuid(&mut u, CUdevice::default())
        }
    };
    if rc == CUresult::SUCCESS {
        Ok(i32::from(u.bytes[0]))
    } else {
        Err(rc)
    }
}

#[test]
fn each_symbol_binds_its_own_abi_of_a_shared_prototype() {
    if parent_runs("each_symbol_binds_its_own_abi_of_a_shared_prototype", "12090") {
        return;
    }
    assert_eq!((elapsed(false), elapsed(true)), (Ok(1.0), Ok(2.0)));
    assert_eq!((uuid(false), uuid(true)), (Ok(1), Ok(2)));
}

#[test]
fn a_driver_older_than_the_newer_abi_binds_the_older_symbol_and_names_what_the_newer_needs() {
    if parent_runs("a_driver_older_than_the_newer_abi_binds_the_older_symbol_and_names_what_the_newer_needs", "12040") {
        return;
    }
    assert_eq!(elapsed(false), Ok(1.0));
    assert_eq!(elapsed(true), Err(CUresult::ERROR_NOT_FOUND));
    let msg = cudagen::loader::last_error_message().unwrap();
    assert!(
        msg.starts_with("cuEventElapsedTime_v2 (CUDA 12.8) not available in ") && msg.ends_with("(driver 12.4): needs CUDA 12.8"),
        "{msg}"
    );
    assert_eq!((uuid(false), uuid(true)), (Ok(1), Ok(2)));
}
