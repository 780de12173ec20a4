//! The seed's SAXPY through a crate regenerated from CUDA 13.x headers (issue #12), run on the
//! GPU machine by tests/gpu/run13.sh: NVRTC compiles the kernel, the 13.x driver API (context
//! created with the 13.x `CUctxCreateParams` argument first) runs it on 16,777,216 floats, and the
//! result is compared with the CPU. With feature `cuda13_4` it also calls cuDeviceGetCliqueCount
//! (CUDA 13.4) first: on an older driver the loader refuses it with an error naming the version
//! needed, which is printed, and the program goes on to the SAXPY (so its driver calls still work).
//!
//! Output contract (run13.sh greps these):
//!   `RESULT: PASS`                  SAXPY matched the CPU (and the 13.4 call behaved)   exit 0
//!   `RESULT: SKIP no driver: ...`   no CUDA driver or device                          exit 0
//!   `RESULT: FAIL ...`              anything else                                     exit 1

use cudagen::driver::{self, CUdeviceptr};
use cudagen::nvrtc;
use std::ffi::{c_void, CStr, CString};
use std::process::ExitCode;

const NUM_THREADS: u32 = 512;
const NUM_BLOCKS: u32 = 32768;

const SAXPY: &CStr = c"extern \"C\" __global__
void saxpy(float a, float *x, float *y, float *out, size_t n)
{
 size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
 if (tid < n) {
   out[tid] = a * x[tid] + y[tid];
 }
}
";

/// `13000` -> `13.0`.
fn cuda(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

fn main() -> ExitCode {
    println!("cudagen crate generated from the CUDA {} headers", cuda(driver::CUDA_VERSION));
    if let Err(e) = driver::init(0) {
        println!("RESULT: SKIP no driver: {e}");
        return ExitCode::SUCCESS;
    }
    match driver::device_get_count() {
        Ok(n) if n > 0 => {}
        other => {
            println!("RESULT: SKIP no driver: no CUDA device ({other:?})");
            return ExitCode::SUCCESS;
        }
    }
    match run() {
        Ok(()) => {
            println!("RESULT: PASS");
            ExitCode::SUCCESS
        }
        Err(e) => {
            println!("RESULT: FAIL {e}");
            ExitCode::FAILURE
        }
    }
}

/// Compiles `source` to PTX through the typed NVRTC API; on failure the error carries the log.
fn compile_ptx(source: &CStr, name: &CStr, arch: &str) -> Result<String, String> {
    let mut prog = nvrtc::create_program(source, Some(name), &[], &[]).map_err(|e| format!("nvrtcCreateProgram: {e}"))?;
    let arch = CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ptx = compiled
        .map_err(|e| format!("nvrtcCompileProgram: {e}\n{log}"))
        .and_then(|()| nvrtc::get_ptx(prog).map_err(|e| format!("nvrtcGetPTX: {e}")));
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { nvrtc::destroy_program(&mut prog) }.map_err(|e| format!("nvrtcDestroyProgram: {e}"))?;
    ptx
}

/// Deterministic pseudo-random floats in [0, 1) (xorshift).
fn random_floats(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}

/// `?` for the driver's results, naming the call.
macro_rules! ck {
    ($call:expr, $what:literal) => {
        $call.map_err(|e| format!("{}: {e}", $what))?
    };
}

fn run() -> Result<(), String> {
    let version = ck!(driver::driver_get_version(), "cuDriverGetVersion");
    let device = ck!(driver::device_get(0), "cuDeviceGet");
    let name = ck!(driver::device_get_name(device), "cuDeviceGetName");
    let major = ck!(driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device), "cuDeviceGetAttribute");
    let minor = ck!(driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device), "cuDeviceGetAttribute");
    let (nv_major, nv_minor) = nvrtc::version().map_err(|e| format!("nvrtcVersion: {e}"))?;
    println!("driver: CUDA {} ({version}); device: {name} (sm_{major}{minor}); NVRTC {nv_major}.{nv_minor}", cuda(version));
    // first, so that the SAXPY below shows the refused call left the process working
    #[cfg(feature = "cuda13_4")]
    newer_than_the_driver(device, version)?;

    let ptx = compile_ptx(SAXPY, c"saxpy.cu", &format!("compute_{major}{minor}"))?;
    println!("NVRTC: saxpy compiled to {} bytes of PTX", ptx.len());
    // 13.x: cuCtxCreate is cuCtxCreate_v4, with the (nullable) CUctxCreateParams first
    // SAFETY: no create parameters, so no addresses in them.
    let context = ck!(unsafe { driver::ctx_create(None, 0, device) }, "cuCtxCreate");
    let ptx = CString::new(ptx).map_err(|e| e.to_string())?;
    let module = ck!(unsafe { driver::module_load_data(ptx.as_ptr().cast()) }, "cuModuleLoadData");
    let kernel = ck!(driver::module_get_function(module, c"saxpy"), "cuModuleGetFunction");

    let n = (NUM_THREADS * NUM_BLOCKS) as usize;
    let bytes = n * std::mem::size_of::<f32>();
    let a = 2.0f32;
    let hx = random_floats(n, 1);
    let hy = random_floats(n, 2);
    let mut hout = vec![f32::NAN; n]; // poisoned: every element must be written
    let dx = ck!(driver::mem_alloc(bytes), "cuMemAlloc");
    let dy = ck!(driver::mem_alloc(bytes), "cuMemAlloc");
    let dout = ck!(driver::mem_alloc(bytes), "cuMemAlloc");
    let stream = ck!(driver::stream_create(0), "cuStreamCreate");
    unsafe {
        ck!(driver::memcpy_htod_async(dx, hx.as_ptr().cast(), bytes, stream), "cuMemcpyHtoDAsync");
        ck!(driver::memcpy_htod_async(dy, hy.as_ptr().cast(), bytes, stream), "cuMemcpyHtoDAsync");
    }
    let (mut pa, mut px, mut py, mut pout, mut pn): (f32, CUdeviceptr, CUdeviceptr, CUdeviceptr, usize) = (a, dx, dy, dout, n);
    let mut args: [*mut c_void; 5] =
        [(&raw mut pa).cast(), (&raw mut px).cast(), (&raw mut py).cast(), (&raw mut pout).cast(), (&raw mut pn).cast()];
    unsafe {
        ck!(
            driver::launch_kernel(kernel, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream, args.as_mut_ptr(), std::ptr::null_mut()),
            "cuLaunchKernel"
        );
        ck!(driver::memcpy_dtoh_async(hout.as_mut_ptr().cast(), dout, bytes, stream), "cuMemcpyDtoHAsync");
    }
    ck!(driver::stream_synchronize(stream), "cuStreamSynchronize");

    let mut max_err = 0f32;
    let mut unwritten = 0usize;
    for i in 0..n {
        if !hout[i].is_finite() {
            unwritten += 1;
        }
        max_err = max_err.max((hout[i] - (a * hx[i] + hy[i])).abs());
    }
    println!("saxpy on {name} (sm_{major}{minor}): {n} floats, max |gpu - cpu| = {max_err:e}, unwritten {unwritten}");
    if unwritten > 0 || max_err > 1e-6 {
        return Err(format!("saxpy differs from the CPU: max error {max_err}, {unwritten} unwritten"));
    }

    // SAFETY: made by this program, live here, used no more where ended; ended once.
    ck!(unsafe { driver::stream_destroy(stream) }, "cuStreamDestroy");
    for d in [dx, dy, dout] {
        // SAFETY: made by this program, live here, used no more where ended; ended once.
        ck!(unsafe { driver::mem_free(d) }, "cuMemFree");
    }
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    ck!(unsafe { driver::module_unload(module) }, "cuModuleUnload");
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    ck!(unsafe { driver::ctx_destroy(context) }, "cuCtxDestroy");
    println!("cleanup: stream, 3 buffers, module and context released");
    Ok(())
}

/// cuDeviceGetCliqueCount is CUDA 13.4: a driver older than that must be refused by the loader
/// with an error naming 13.4 (not called with an ABI it lacks, not a crash); a newer driver may
/// answer or return its own status (a device in no fabric clique).
#[cfg(feature = "cuda13_4")]
fn newer_than_the_driver(device: driver::CUdevice, version: i32) -> Result<(), String> {
    const NEEDS: i32 = 13040;
    match driver::device_get_clique_count(device) {
        Err(driver::Error::Load(e)) => {
            println!("cuDeviceGetCliqueCount on driver {}: loader error: {e}", cuda(version));
            if version >= NEEDS {
                return Err(format!("the driver is {}, yet the loader refused a 13.4 function", cuda(version)));
            }
            let text = e.to_string();
            if !text.contains("13.4") {
                return Err(format!("the loader's error does not name CUDA 13.4: {text}"));
            }
            println!("refused as expected (the driver lacks CUDA 13.4); carrying on with SAXPY");
        }
        Err(e @ driver::Error::Driver(_)) => {
            println!("cuDeviceGetCliqueCount on driver {}: driver status {e}", cuda(version));
            if version < NEEDS {
                return Err(format!("a {} driver was asked for a 13.4 function", cuda(version)));
            }
        }
        Ok(count) => {
            println!("cuDeviceGetCliqueCount on driver {}: {count} clique(s)", cuda(version));
            if version < NEEDS {
                return Err(format!("a {} driver was asked for a 13.4 function", cuda(version)));
            }
        }
    }
    Ok(())
}
