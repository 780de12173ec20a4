//! nvJitLink and NVVM for real, no GPU needed (the libraries of NVIDIA's wheels, found through
//! `CUDAGEN_NVJITLINK_PATH` / `CUDAGEN_NVVM_PATH`, which `cargo xtask test` sets): NVRTC -dlto
//! LTO-IR linked into an sm_90 cubin, and a hand-written NVVM IR kernel compiled to PTX.

use cudagen::{nvjitlink, nvrtc, nvvm};
use cudagen_tests::{link_lto_cubin, nvvm_ptx, SAXPY, SCALE_KERNEL, SCALE_NVVM_IR};

/// True when `what` loaded; else prints why and skips (outside CI) or fails (in CI).
fn available_or_skip<E: std::fmt::Display>(what: &str, probe: Result<(), E>) -> bool {
    match probe {
        Ok(()) => true,
        Err(e) if std::env::var_os("CI").is_none() => {
            println!("skipped: {what} not available ({e}); `cargo xtask test` provides it");
            false
        }
        Err(e) => panic!("{what} must be available in CI: {e}"),
    }
}

#[test]
fn nvrtc_lto_ir_links_into_an_sm_90_cubin() {
    if !available_or_skip("NVRTC", nvrtc::version().map(drop)) || !available_or_skip("nvJitLink", nvjitlink::version().map(drop))
    {
        return;
    }
    let cubin = link_lto_cubin(SAXPY, c"saxpy.cu", 90).expect("link");
    assert_eq!(&cubin[..4], b"\x7fELF", "a cubin is an ELF image");
    // The ELF's e_flags hold the SM (low byte 90 for sm_90 in the CUDA ELF ABI), and the kernel's
    // name is in its string table.
    assert!(cubin.windows(5).any(|w| w == b"saxpy"), "no saxpy symbol in the cubin");
    // The kernel the GPU binary and the Python tests link (tests/kernels/scale.cu).
    let cubin = link_lto_cubin(SCALE_KERNEL, c"scale.cu", 90).expect("link scale.cu");
    assert!(cubin.windows(5).any(|w| w == b"scale"), "no scale symbol in the cubin");
}

#[test]
fn a_link_without_an_arch_is_an_error_value() {
    if !available_or_skip("nvJitLink", nvjitlink::version().map(drop)) {
        return;
    }
    let err = nvjitlink::create(&[c"-lto"]).expect_err("nvJitLink needs -arch");
    assert_eq!(err.code(), nvjitlink::nvJitLinkResult::ERROR_MISSING_ARCH, "{err}");
}

#[test]
fn nvvm_ir_compiles_to_ptx_with_the_scale_entry() {
    if !available_or_skip("NVVM", nvvm::version().map(drop)) {
        return;
    }
    let ptx = nvvm_ptx(SCALE_NVVM_IR, 90).expect("compile");
    assert!(ptx.contains(".entry scale("), "no scale entry in:\n{}", &ptx[..ptx.len().min(600)]);
    assert!(ptx.contains(".target sm_90"), "{}", &ptx[..ptx.len().min(600)]);
}

#[test]
fn broken_nvvm_ir_is_an_error_value_with_a_log() {
    if !available_or_skip("NVVM", nvvm::version().map(drop)) {
        return;
    }
    let err = nvvm_ptx("this is not IR", 90).expect_err("must fail");
    assert!(err.contains("NVVM_ERROR"), "{err}");
}

#[test]
fn nvvm_reports_its_ir_version() {
    if !available_or_skip("NVVM", nvvm::version().map(drop)) {
        return;
    }
    let (major, _minor, _dbg_major, _dbg_minor) = nvvm::ir_version().unwrap();
    assert!(major >= 2, "NVVM IR major {major}");
}
