//! nvJitLink and NVVM end to end on a GPU (issue #25), run by tests/gpu/jitnvvm.sh: the kernel
//! `scale` (x[i] *= a) as NVRTC LTO-IR linked by nvJitLink into a cubin for the device's arch, and
//! as hand-written NVVM IR compiled to PTX; each is loaded with cuModuleLoadData, launched on
//! 1,048,576 floats and compared with the CPU.
//!
//! Output contract (jitnvvm.sh greps these): one `<step>: ...` line per step, then
//!   `RESULT: PASS`             both launches matched the CPU          exit 0
//!   `RESULT: SKIP no driver`   no CUDA driver or device (after the two compile steps)   exit 0
//!   `RESULT: FAIL ...`         anything else                          exit 1

#[path = "../../jit.rs"]
mod jit;

use cudagen::driver::{self, CUdevice_attribute};
use std::ffi::c_void;
use std::process::ExitCode;

const N: usize = 1 << 20;

const KERNEL: &std::ffi::CStr = jit::SCALE_KERNEL;

/// Loads `image` (cubin or PTX), launches `scale(x, 3, N)`, and returns how many of the N
/// results differ from 3 i.
fn launch(image: &[u8]) -> Result<usize, String> {
    fn e(what: &'static str) -> impl Fn(driver::Error) -> String {
        move |err| format!("{what}: {err}")
    }
    // SAFETY: `image` is a complete cubin, or PTX with its NUL, alive across the call.
    let module = unsafe { driver::module_load_data(image.as_ptr().cast()) }.map_err(e("cuModuleLoadData"))?;
    let f = driver::module_get_function(module, c"scale").map_err(e("cuModuleGetFunction"))?;
    let host: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let bytes = N * 4;
    let d = driver::mem_alloc(bytes).map_err(e("cuMemAlloc"))?;
    // SAFETY: `host` holds `bytes` bytes; `d` is an allocation of `bytes`.
    unsafe { driver::memcpy_htod(d, host.as_ptr().cast(), bytes) }.map_err(e("cuMemcpyHtoD"))?;
    let (mut dp, mut a, mut n) = (d, 3.0f32, N as i32);
    let mut args: [*mut c_void; 3] = [(&raw mut dp).cast(), (&raw mut a).cast(), (&raw mut n).cast()];
    let blocks = N.div_ceil(256) as u32;
    // SAFETY: `args` points at three values of the kernel's parameter types, alive across the call.
    unsafe { driver::launch_kernel(f, blocks, 1, 1, 256, 1, 1, 0, Default::default(), args.as_mut_ptr(), std::ptr::null_mut()) }
        .map_err(e("cuLaunchKernel"))?;
    let mut out = vec![0f32; N];
    // SAFETY: `out` holds `bytes` bytes.
    unsafe { driver::memcpy_dtoh(out.as_mut_ptr().cast(), d, bytes) }.map_err(e("cuMemcpyDtoH"))?;
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { driver::mem_free(d) }.map_err(e("cuMemFree"))?;
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { driver::module_unload(module) }.map_err(e("cuModuleUnload"))?;
    Ok(out.iter().enumerate().filter(|(i, v)| **v != 3.0 * *i as f32).count())
}

fn run() -> Result<bool, String> {
    let device = driver::init(0).and_then(|()| driver::device_get(0)).ok();
    let sm = match device {
        Some(dev) => {
            let major =
                driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, dev).map_err(|e| e.to_string())?;
            let minor =
                driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, dev).map_err(|e| e.to_string())?;
            (major * 10 + minor) as u32
        }
        None => 90,
    };
    let cubin = jit::link_lto_cubin(KERNEL, c"scale.cu", sm)?;
    let (jl_major, jl_minor) = cudagen::nvjitlink::version().map_err(|e| e.to_string())?;
    println!("nvjitlink: nvJitLink {jl_major}.{jl_minor} linked {} bytes of cubin for sm_{sm}", cubin.len());
    let mut ptx = jit::nvvm_ptx(jit::SCALE_NVVM_IR, sm)?.into_bytes();
    ptx.push(0);
    let (v_major, v_minor) = cudagen::nvvm::version().map_err(|e| e.to_string())?;
    println!("nvvm: NVVM {v_major}.{v_minor} compiled {} bytes of PTX", ptx.len());
    let Some(dev) = device else { return Ok(false) };
    let ctx = driver::device_primary_ctx_retain(dev).map_err(|e| e.to_string())?;
    driver::ctx_set_current(ctx).map_err(|e| e.to_string())?;
    let bad_cubin = launch(&cubin)?;
    println!("launch-cubin: {N} floats, {bad_cubin} differ from the CPU");
    let bad_ptx = launch(&ptx)?;
    println!("launch-nvvm: {N} floats, {bad_ptx} differ from the CPU");
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { driver::device_primary_ctx_release(dev) }.map_err(|e| e.to_string())?;
    if bad_cubin + bad_ptx > 0 {
        return Err(format!("{bad_cubin} + {bad_ptx} wrong results"));
    }
    Ok(true)
}

fn main() -> ExitCode {
    match run() {
        Ok(true) => {
            println!("RESULT: PASS");
            ExitCode::SUCCESS
        }
        Ok(false) => {
            println!("RESULT: SKIP no driver");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("RESULT: FAIL {e}");
            ExitCode::FAILURE
        }
    }
}
