//! NVRTC for real, no GPU needed: SAXPY to PTX through the typed API (libnvrtc from NVIDIA's pip
//! wheel, found through `CUDAGEN_NVRTC_PATH` which `cargo xtask test` sets).

use cudagen::nvrtc;
use cudagen_tests::{compile_ptx, SAXPY};

fn nvrtc_or_skip() -> bool {
    match nvrtc::version() {
        Ok(_) => true,
        Err(e) if std::env::var_os("CI").is_none() => {
            println!("skipped: NVRTC not available ({e}); `cargo xtask test` provides it");
            false
        }
        Err(e) => panic!("NVRTC must be available in CI: {e}"),
    }
}

#[test]
fn saxpy_compiles_to_ptx_with_the_saxpy_entry() {
    if !nvrtc_or_skip() {
        return;
    }
    let ptx = compile_ptx(SAXPY, c"saxpy.cu", "compute_75").expect("compile");
    assert!(ptx.contains(".visible .entry saxpy("), "no saxpy entry in:\n{}", &ptx[..ptx.len().min(400)]);
    assert!(ptx.contains(".target sm_75"));
}

#[test]
fn version_is_the_wheel_version() {
    if !nvrtc_or_skip() {
        return;
    }
    let (major, minor) = nvrtc::version().unwrap();
    assert!(major >= 12 && minor >= 0, "{major}.{minor}");
}

#[test]
fn a_syntax_error_is_an_error_value_with_a_log() {
    if !nvrtc_or_skip() {
        return;
    }
    let err = compile_ptx(c"extern \"C\" __global__ void broken( {", c"bad.cu", "compute_75").expect_err("must fail");
    assert!(err.contains("NVRTC_ERROR_COMPILATION"), "{err}");
    assert!(err.contains("error"), "log missing: {err}");
}

#[test]
fn unknown_status_codes_are_representable() {
    let odd = nvrtc::nvrtcResult(4242);
    assert_eq!(odd.name(), None);
    assert_eq!(format!("{odd:?}"), "nvrtcResult(4242)");
    assert_eq!(nvrtc::nvrtcResult::SUCCESS.name(), Some("NVRTC_SUCCESS"));
}
