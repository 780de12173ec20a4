//! SAXPY through the CUDA runtime API (issue #25), run on the GPU machine by tests/gpu/runtime.sh:
//! NVRTC compiles the kernel, the runtime loads it (cudaLibraryLoadData, cudaLibraryGetKernel),
//! allocates, copies and launches it (cudaLaunchKernel with the cudaKernel_t) on a stream made by
//! cudaStreamCreate, and the result is compared with the CPU. Runtime and driver objects mix as
//! they are: the runtime's stream is the driver's `CUstream` type (cuStreamSynchronize takes it),
//! its kernel the driver's `CUkernel` (cuKernelGetFunction takes it), and a second launch through
//! cuLaunchKernel on the runtime's stream writes a second output that must match too.
//!
//! Output contract: `RESULT: PASS` (exit 0), `RESULT: SKIP no device: ...` (exit 0),
//! `RESULT: FAIL ...` (exit 1).

use cudagen::runtime::{self, cudaMemcpyKind, dim3};
use cudagen::{driver, nvrtc};
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

macro_rules! ck {
    ($call:expr, $what:literal) => {
        $call.map_err(|e| format!("{}: {e}", $what))?
    };
}

fn main() -> ExitCode {
    match runtime::get_device_count() {
        Ok(n) if n > 0 => {}
        other => {
            println!("RESULT: SKIP no device: {other:?}");
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

fn compile_ptx(arch: &str) -> Result<CString, String> {
    let mut prog = nvrtc::create_program(SAXPY, Some(c"saxpy.cu"), &[], &[]).map_err(|e| format!("nvrtcCreateProgram: {e}"))?;
    let arch = CString::new(format!("--gpu-architecture={arch}")).unwrap();
    let compiled = nvrtc::compile_program(prog, &[c"--fmad=false", arch.as_c_str()]);
    let log = nvrtc::get_program_log(prog).unwrap_or_default();
    let ptx = compiled
        .map_err(|e| format!("nvrtcCompileProgram: {e}\n{log}"))
        .and_then(|()| nvrtc::get_ptx(prog).map_err(|e| format!("nvrtcGetPTX: {e}")));
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { nvrtc::destroy_program(&mut prog) }.map_err(|e| format!("nvrtcDestroyProgram: {e}"))?;
    CString::new(ptx?).map_err(|e| e.to_string())
}

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

fn run() -> Result<(), String> {
    ck!(runtime::set_device(0), "cudaSetDevice");
    let rt_version = ck!(runtime::runtime_get_version(), "cudaRuntimeGetVersion");
    let drv_version = ck!(runtime::driver_get_version(), "cudaDriverGetVersion");
    let major = ck!(runtime::device_get_attribute(runtime::cudaDeviceAttr::cudaDevAttrComputeCapabilityMajor, 0), "cudaDeviceGetAttribute");
    let minor = ck!(runtime::device_get_attribute(runtime::cudaDeviceAttr::cudaDevAttrComputeCapabilityMinor, 0), "cudaDeviceGetAttribute");
    println!("runtime {rt_version}, driver {drv_version}, sm_{major}{minor}");
    let ptx = compile_ptx(&format!("compute_{major}{minor}"))?;
    let library = ck!(unsafe { runtime::library_load_data(ptx.as_ptr().cast(), &[], &[], &[], &[]) }, "cudaLibraryLoadData");
    let kernel = ck!(runtime::library_get_kernel(library, c"saxpy"), "cudaLibraryGetKernel");

    let n = (NUM_THREADS * NUM_BLOCKS) as usize;
    let bytes = n * std::mem::size_of::<f32>();
    let a = 2.0f32;
    let hx = random_floats(n, 1);
    let hy = random_floats(n, 2);
    let dx = ck!(runtime::malloc(bytes), "cudaMalloc");
    let dy = ck!(runtime::malloc(bytes), "cudaMalloc");
    let dout = ck!(runtime::malloc(bytes), "cudaMalloc");
    let dout2 = ck!(runtime::malloc(bytes), "cudaMalloc");
    // the runtime's stream is a driver::CUstream: no conversion anywhere below
    let stream: driver::CUstream = ck!(runtime::stream_create(), "cudaStreamCreate");
    unsafe {
        ck!(runtime::memcpy_async(dx, hx.as_ptr().cast(), bytes, cudaMemcpyKind::cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
        ck!(runtime::memcpy_async(dy, hy.as_ptr().cast(), bytes, cudaMemcpyKind::cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    }
    let (mut pa, mut px, mut py, mut pn) = (a, dx, dy, n);
    let mut pout = dout;
    let mut args: [*mut c_void; 5] =
        [(&raw mut pa).cast(), (&raw mut px).cast(), (&raw mut py).cast(), (&raw mut pout).cast(), (&raw mut pn).cast()];
    let grid = dim3 { x: NUM_BLOCKS, y: 1, z: 1 };
    let block = dim3 { x: NUM_THREADS, y: 1, z: 1 };
    unsafe {
        ck!(runtime::launch_kernel(kernel.as_raw().cast_const(), grid, block, args.as_mut_ptr(), 0, stream), "cudaLaunchKernel");
    }
    // the runtime's kernel is a driver::CUkernel; launch it once more through the driver
    let function = ck!(driver::kernel_get_function(kernel), "cuKernelGetFunction");
    pout = dout2;
    unsafe {
        ck!(
            driver::launch_kernel(function, NUM_BLOCKS, 1, 1, NUM_THREADS, 1, 1, 0, stream, args.as_mut_ptr(), std::ptr::null_mut()),
            "cuLaunchKernel"
        );
    }
    ck!(driver::stream_synchronize(stream), "cuStreamSynchronize (runtime stream)");
    let mut worst = 0f32;
    for d in [dout, dout2] {
        let mut hout = vec![f32::NAN; n];
        unsafe { ck!(runtime::memcpy(hout.as_mut_ptr().cast(), d, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost), "cudaMemcpy") };
        for i in 0..n {
            let e = (hout[i] - (a * hx[i] + hy[i])).abs();
            worst = if e.is_nan() { f32::INFINITY } else { worst.max(e) };
        }
    }
    println!("saxpy: {n} floats, runtime launch + driver launch on the runtime's stream, max |gpu - cpu| = {worst:e}");
    if worst > 1e-6 {
        return Err(format!("saxpy differs from the CPU: {worst}"));
    }
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    ck!(unsafe { driver::stream_destroy(stream) }, "cuStreamDestroy (runtime stream)");
    for d in [dx, dy, dout, dout2] {
        unsafe { ck!(runtime::free(d), "cudaFree") };
    }
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    ck!(unsafe { runtime::library_unload(library) }, "cudaLibraryUnload");
    println!("cleanup: stream (by the driver), 4 buffers, library");
    Ok(())
}
