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

/// `(offset, size)` of each field of a `#[repr(C)]` struct of these types: the C layout the
/// CUDA parameter buffer follows, computed by the compiler, independently of the PTX reader.
macro_rules! c_layout {
    ($($f:ident: $t:ty),*) => {{
        #[allow(dead_code)]
        #[repr(C)]
        struct L { $($f: $t),* }
        vec![$((core::mem::offset_of!(L, $f), core::mem::size_of::<$t>())),*] as Vec<(usize, usize)>
    }};
}

#[test]
fn ptx_parameter_layouts_of_the_safe_gpu_kernels_are_their_c_layouts() {
    if !nvrtc_or_skip() {
        return;
    }
    #[allow(dead_code)]
    #[repr(C)]
    struct Params(f32, [f32; 2]);
    #[allow(dead_code)]
    #[repr(C)]
    struct Wide(f64, [f32; 2]);
    #[allow(dead_code)]
    #[repr(C)]
    struct Ptrs(u64, u32);
    type Ptr = u64;
    let want: Vec<(&str, Vec<(usize, usize)>)> = vec![
        ("accumulate", c_layout!(acc: Ptr, a: Ptr, n: u32)),
        ("read_state", c_layout!(n: Ptr, s: Ptr)),
        ("s_add_u64", c_layout!(v: Ptr, add: u64, n: i32)),
        ("s_bool", c_layout!(b: bool, a: i32)),
        ("s_bounded", c_layout!(x: Ptr, n: i32)),
        ("s_copy", c_layout!(src: Ptr, dst: Ptr, n: u32)),
        ("s_f32", c_layout!(a: f32)),
        ("s_f64", c_layout!(a: f64)),
        ("s_fill2d", c_layout!(out: Ptr, w: i32, h: i32)),
        ("s_fill3d", c_layout!(out: Ptr, nx: i32, ny: i32, nz: i32)),
        ("s_i16", c_layout!(a: i16)),
        ("s_i32", c_layout!(a: i32)),
        ("s_i64", c_layout!(a: i64)),
        (
            "s_many",
            c_layout!(a0: i8, a1: u8, a2: i16, a3: u16, a4: i32, a5: u32, a6: i64, a7: u64, a8: f32, a9: f64,
                             a10: bool, a11: i16, a12: i32, a13: i64, a14: f64, a15: i8),
        ),
        ("s_mixed", c_layout!(c: i8, s: i16, i: i32, l: i64, f: f32, d: f64)),
        ("s_mul", c_layout!(a: Ptr, b: Ptr, c: Ptr, n: u64)),
        ("s_none", c_layout!()),
        ("s_ptrs", c_layout!(p: Ptrs)),
        ("s_reverse", c_layout!(v: Ptr, n: i32)),
        ("s_saxpy", c_layout!(a: f32, x: Ptr, y: Ptr, n: usize)),
        ("s_struct", c_layout!(p: Params)),
        ("s_sum", c_layout!(x: Ptr, n: i32)),
        ("s_u8", c_layout!(a: u8)),
        ("s_wide", c_layout!(w: Wide)),
        ("spin_fill", c_layout!(a: Ptr, value: f32, n: u32)),
    ];
    let src = std::ffi::CString::new(cudagen_tests::SAFE_KERNELS).unwrap();
    let ptx = compile_ptx(&src, c"safe_gpu.cu", "compute_80").expect("the safe_gpu kernels compile");
    let got: Vec<(String, Vec<(usize, usize)>)> = cudagen::safe::ptx_kernel_params(ptx.as_bytes())
        .into_iter()
        .map(|(name, params)| (name, params.iter().map(|p| (p.offset, p.size)).collect()))
        .collect();
    let got: Vec<(&str, Vec<(usize, usize)>)> = got.iter().map(|(n, p)| (n.as_str(), p.clone())).collect();
    assert_eq!(got, want, "every entry of NVRTC's PTX, laid out as C lays out its parameters");
    println!("summary: {} kernels' PTX parameter layouts equal their C layouts", got.len());
}
