//! safebench (issue #24): what cudagen's safe layer costs against its typed layer and against
//! cudarc's safe API, doing the same work in one process on one primary context:
//!   saxpy N   alloc x and y + copy both in + SAXPY launch + copy y out + free + synchronize
//!   launch    an empty 5-argument kernel (3 buffers), batches of 256, one synchronize
//!   launch calls only   the same, timing only the 256 launch calls (the host's cost)
//!   alloc     a zeroed 1Ki-float buffer allocated and freed, batches of 256, one synchronize
//! Each sample runs every path once, in forward order on even samples and reversed on odd ones;
//! the table gives each path's median and the median of its paired differences with the typed
//! layer (same sample). Prints one SKIP line and exits 0 where no driver or device exists.
//! Usage: safebench [SAMPLES] (default 41).

mod paths;
mod stats;

use cudagen::driver::{self, CUdevice_attribute};
use cudagen::nvrtc;
use cudagen::safe::{DeviceBuffer, Module, PrimaryContext, Stream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::Ptx;
use paths::{Cudarc, Safe, Typed, A};
use std::ffi::{CStr, CString};

const KERNELS: &CStr = c"
extern \"C\" __global__ void saxpy(float a, const float *x, float *y, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern \"C\" __global__ void empty5(float a, float *x, float *y, float *out, size_t n) {}
";

/// `CU_STREAM_NON_BLOCKING`, as cudarc's `new_stream` makes them.
const NON_BLOCKING: u32 = 1;

fn main() {
    let samples = std::env::args().nth(1).map_or(41, |s| s.parse().expect("SAMPLES: a number"));
    if let Err(why) = driver::init(0).and_then(|()| driver::device_get_count()).map_err(|e| e.to_string()).and_then(|n| {
        if n > 0 {
            Ok(())
        } else {
            Err("0 devices".into())
        }
    }) {
        println!("safebench: SKIP no CUDA driver or device ({why}); nothing run");
        return;
    }
    let dev = driver::device_get(0).unwrap();
    let name = driver::device_get_name(dev).unwrap_or_default();
    let version = driver::driver_get_version().unwrap();
    let ctx = PrimaryContext::retain(dev).unwrap();
    let _current = ctx.bind().unwrap();
    let ptx = compile(dev);
    println!("safebench: {name}, driver {version}, {samples} samples");

    let module = Module::from_ptx(&ctx, CString::new(ptx.clone()).unwrap()).unwrap();
    let safe = Safe {
        stream: Stream::create(&ctx, NON_BLOCKING).unwrap(),
        saxpy: module.get_function(c"saxpy").unwrap(),
        empty5: module.get_function(c"empty5").unwrap(),
    };
    let typed =
        // SAFETY: `safe` (the module's functions) outlives every typed launch of `typed`.
        Typed { stream: driver::stream_create(NON_BLOCKING).unwrap(), saxpy: unsafe { safe.saxpy.as_raw() }, empty5: unsafe { safe.empty5.as_raw() } };
    if let Ok(spec) = std::env::var("SAFEBENCH_COUNT") {
        count_only(&spec, &safe, &typed);
        return;
    }
    let cudarc = cudarc_path(&ptx, true);
    let noev = cudarc_path(&ptx, false);
    let ok = check(&safe, &typed, &cudarc, &noev);
    run(samples, &safe, &typed, &cudarc, &noev);
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { driver::stream_destroy(typed.stream) }.unwrap();
    let drop_errors = cudagen::safe::take_drop_errors();
    let pass = ok && drop_errors.is_empty();
    println!("drop errors: {drop_errors:?}");
    println!("RESULT: {}", if pass { "PASS" } else { "FAIL" });
    std::process::exit(if pass { 0 } else { 1 });
}

/// `SAFEBENCH_COUNT=typed:N` or `safe:N`: only N launches of the empty 5-argument kernel on that
/// path, then exit (`tests/gpu/safebench_callgrind.sh` counts instructions of two N and divides
/// the difference).
fn count_only(spec: &str, safe: &Safe<'_>, typed: &Typed) {
    let (path, n) = spec.split_once(':').expect("SAFEBENCH_COUNT: typed:N or safe:N");
    let n: usize = n.parse().expect("SAFEBENCH_COUNT: N a number");
    match path {
        "typed" => {
            let bufs = [0; 3].map(|_| driver::mem_alloc(4).unwrap());
            typed.time_launch(n, bufs, false);
            // SAFETY: made here, idle after time_launch's synchronize, each freed once.
            bufs.iter().for_each(|&p| unsafe { driver::mem_free(p) }.unwrap());
        }
        "safe" => {
            let mut bufs = [0; 3].map(|_| DeviceBuffer::<f32>::zeroed(&safe.stream, 1).unwrap());
            safe.time_launch(n, &mut bufs, false);
        }
        other => panic!("SAFEBENCH_COUNT: unknown path {other}"),
    }
    // SAFETY: made by this program, used no more; ended once.
    unsafe { driver::stream_destroy(typed.stream) }.unwrap();
    println!("counted: {n} launches via {path}");
}

/// Both kernels as PTX for this device, through cudagen's NVRTC.
fn compile(dev: driver::CUdevice) -> String {
    let cc = |a| driver::device_get_attribute(a, dev).unwrap();
    let (major, minor) = (cc(CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR), cc(CUdevice_attribute::COMPUTE_CAPABILITY_MINOR));
    let arch = CString::new(format!("--gpu-architecture=compute_{major}{minor}")).unwrap();
    let mut prog = nvrtc::create_program(KERNELS, Some(c"safebench.cu"), &[], &[]).expect("nvrtc: create");
    let compiled = nvrtc::compile_program(prog, &[c"--fmad=false", arch.as_c_str()]);
    if let Err(e) = compiled {
        panic!("nvrtc: {e}\n{}", nvrtc::get_program_log(prog).unwrap_or_default());
    }
    let ptx = nvrtc::get_ptx(prog).expect("nvrtc: ptx");
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    unsafe { nvrtc::destroy_program(&mut prog) }.unwrap();
    ptx
}

/// cudarc on the same primary context, with its own stream; `tracking` false turns its event
/// tracking off before anything is allocated.
fn cudarc_path(ptx: &str, tracking: bool) -> Cudarc {
    let ctx = CudaContext::new(0).unwrap();
    if !tracking {
        // SAFETY: each buffer of this path is used on its one stream only.
        unsafe { ctx.disable_event_tracking() };
    }
    let module = ctx.load_module(Ptx::from_src(ptx)).unwrap();
    Cudarc {
        stream: ctx.new_stream().unwrap(),
        saxpy: module.load_function("saxpy").unwrap(),
        empty5: module.load_function("empty5").unwrap(),
    }
}

/// Every path's SAXPY equals the CPU's `A * x + y` (no FMA on either side), bit for bit.
fn check(safe: &Safe<'_>, typed: &Typed, cudarc: &Cudarc, noev: &Cudarc) -> bool {
    let mut ok = true;
    for n in [1usize << 10, 1 << 20] {
        let (hx, hy) = (stats::floats(n, 1), stats::floats(n, 2));
        let want: Vec<f32> = hx.iter().zip(&hy).map(|(x, y)| A * x + y).collect();
        for (path, got) in [
            ("safe", safe.saxpy(&hx, &hy)),
            ("typed", typed.saxpy(&hx, &hy)),
            ("cudarc", cudarc.saxpy(&hx, &hy)),
            ("cudarc-noev", noev.saxpy(&hx, &hy)),
        ] {
            let same = got == want;
            println!("check: saxpy {n} floats via {path}: {}", if same { "exact" } else { "WRONG" });
            ok &= same;
        }
    }
    ok
}

/// The table: each op's samples, medians and paired differences with the typed layer.
fn run(samples: usize, safe: &Safe<'_>, typed: &Typed, cudarc: &Cudarc, noev: &Cudarc) {
    stats::header();
    for (n, reps) in [(1usize << 10, 32), (1 << 16, 8), (1 << 20, 2), (1 << 24, 1)] {
        let (hx, hy) = (stats::floats(n, 3), stats::floats(n, 4));
        let row = stats::sample(
            samples,
            [
                &mut || typed.time_saxpy(reps, &hx, &hy),
                &mut || safe.time_saxpy(reps, &hx, &hy),
                &mut || cudarc.time_saxpy(reps, &hx, &hy),
                &mut || noev.time_saxpy(reps, &hx, &hy),
            ],
        );
        stats::print_row(&format!("saxpy {}", stats::size_name(n)), &row);
    }

    const BATCH: usize = 256;
    let mut safe_bufs = [0; 3].map(|_| DeviceBuffer::<f32>::zeroed(&safe.stream, 1).unwrap());
    let typed_bufs = [0; 3].map(|_| driver::mem_alloc(4).unwrap());
    let mut rc_bufs = [0; 3].map(|_| cudarc.stream.alloc_zeros::<f32>(1).unwrap());
    let mut noev_bufs = [0; 3].map(|_| noev.stream.alloc_zeros::<f32>(1).unwrap());
    for (name, whole) in [("launch (5 args)", true), ("launch calls only", false)] {
        let row = stats::sample(
            samples,
            [
                &mut || typed.time_launch(BATCH, typed_bufs, whole),
                &mut || safe.time_launch(BATCH, &mut safe_bufs, whole),
                &mut || cudarc.time_launch(BATCH, &mut rc_bufs, whole),
                &mut || noev.time_launch(BATCH, &mut noev_bufs, whole),
            ],
        );
        stats::print_row(name, &row);
    }
    drop(safe_bufs);
    // SAFETY: made by this program, live here, used no more where ended; ended once.
    typed_bufs.iter().for_each(|&p| unsafe { driver::mem_free(p) }.unwrap());

    let len = 1 << 10;
    let row = stats::sample(
        samples,
        [
            &mut || typed.time_alloc(BATCH, len),
            &mut || safe.time_alloc(BATCH, len),
            &mut || cudarc.time_alloc(BATCH, len),
            &mut || noev.time_alloc(BATCH, len),
        ],
    );
    stats::print_row("alloc0+free 1Ki", &row);
}
