//! Contexts and threads on a real GPU (the rule in NOTES.md, "Safe layer: contexts and threads"):
//! a context is current per thread; owned objects made in it borrow it and may be used from any
//! thread that has it current. Four threads bind the same primary context, each making its own
//! stream and running launches and copies on it with one shared module and function; a thread
//! with no current context gets `Error::NotCurrent` from a constructor (nothing created); a
//! buffer (`Send`) and a graph (`Send`, not `Sync`) move to another thread and are used there.
//! Skips with one line where no driver exists. No `unsafe`.

use cudagen::driver;
use cudagen::safe::{DeviceBuffer, Error, Graph, LaunchConfig, Module, PrimaryContext, Stream, StreamLaunch};
use cudagen_tests::{compile_ptx, gpu_or_skip, random_floats, SAXPY};
use std::ffi::CString;

/// `CU_STREAM_NON_BLOCKING`.
const NON_BLOCKING: u32 = 1;
/// `CU_STREAM_CAPTURE_MODE_THREAD_LOCAL`: a capture on one thread does not affect others.
const CAPTURE_THREAD_LOCAL: driver::CUstreamCaptureMode = driver::CUstreamCaptureMode::THREAD_LOCAL;

fn ptx(device: driver::CUdevice) -> CString {
    let major = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, device).unwrap();
    let minor = driver::device_get_attribute(driver::CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, device).unwrap();
    CString::new(compile_ptx(SAXPY, c"saxpy.cu", &format!("compute_{major}{minor}")).expect("nvrtc")).unwrap()
}

#[test]
fn four_threads_share_one_context() {
    if !gpu_or_skip("four_threads_share_one_context") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let ctx = PrimaryContext::retain(device).unwrap();
    // Load on this thread, then leave no context current here.
    let bound = ctx.bind().unwrap();
    let module = Module::from_ptx(&ctx, ptx(device)).unwrap();
    let saxpy = module.get_function(c"saxpy").unwrap();
    drop(bound);
    let n = 1usize << 20;
    let rounds = 10;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4u64)
            .map(|t| {
                let (ctx, saxpy) = (&ctx, &saxpy);
                scope.spawn(move || {
                    // A new thread has no current context: the constructor refuses, creating nothing.
                    let e = Stream::create(ctx, NON_BLOCKING).unwrap_err();
                    assert!(matches!(e, Error::NotCurrent { current: false }), "{e:?}");
                    let _bound = ctx.bind().unwrap();
                    let s = Stream::create(ctx, NON_BLOCKING).unwrap();
                    let (hx, hy) = (random_floats(n, 10 + t), random_floats(n, 20 + t));
                    let x = DeviceBuffer::from_host(&s, &hx).unwrap();
                    let mut y = DeviceBuffer::from_host(&s, &hy).unwrap();
                    let mut out = DeviceBuffer::<f32>::zeroed(&s, n).unwrap();
                    let a = t as f32 + 1.0;
                    for _ in 0..rounds {
                        s.launch(saxpy, LaunchConfig::for_elements(n as u32, 256), (a, &x, &y, &mut out, n)).unwrap();
                        y.copy_from_device(&out.as_slice()).unwrap();
                    }
                    let got = y.to_vec().unwrap();
                    let mut want = hy.clone();
                    for _ in 0..rounds {
                        for (w, x) in want.iter_mut().zip(&hx) {
                            *w += a * x;
                        }
                    }
                    let err = got.iter().zip(&want).map(|(g, w)| (g - w).abs() / w.abs().max(1.0)).fold(0.0f32, f32::max);
                    assert!(err < 1e-5, "thread {t}: relative error {err}");
                    err
                })
            })
            .collect();
        for (t, w) in workers.into_iter().enumerate() {
            let err = w.join().unwrap();
            println!("thread {t}: own stream, {rounds} launches + device copies of {n} floats, max rel. error {err:e}");
        }
    });
    assert!(cudagen::safe::take_drop_errors().is_empty());
    println!("summary: safe_threads PASS: 4 threads bound one primary context, refused without it, {rounds} rounds each");
}

#[test]
fn owned_objects_move_between_threads() {
    if !gpu_or_skip("owned_objects_move_between_threads") {
        return;
    }
    let device = driver::device_get(0).unwrap();
    let ctx = PrimaryContext::retain(device).unwrap();
    let _bound = ctx.bind().unwrap();
    let module = Module::from_ptx(&ctx, ptx(device)).unwrap();
    let saxpy = module.get_function(c"saxpy").unwrap();
    let s = Stream::create(&ctx, NON_BLOCKING).unwrap();
    let n = 4096usize;
    let x = DeviceBuffer::from_host(&s, &vec![1.0f32; n]).unwrap();
    let y = DeviceBuffer::from_host(&s, &vec![2.0f32; n]).unwrap();
    let mut out = DeviceBuffer::<f32>::zeroed(&s, n).unwrap();
    // Capture a launch into a graph on this thread (after one plain launch, which reads the
    // kernel's parameters outside the capture).
    let cfg = LaunchConfig::for_elements(n as u32, 256);
    s.launch(&saxpy, cfg, (3.0f32, &x, &y, &mut out, n)).unwrap();
    s.begin_capture(CAPTURE_THREAD_LOCAL).unwrap();
    s.launch(&saxpy, cfg, (3.0f32, &x, &y, &mut out, n)).unwrap();
    // SAFETY: `saxpy`, `x`, `y` and `out` outlive the graph (it ends in the scope below).
    let graph: Graph = unsafe { s.end_capture() }.unwrap();
    // The graph (Send, not Sync) and the output buffer (Send) move to another thread, which
    // binds the context, instantiates and launches the graph and reads the buffer back.
    let (sum, out) = std::thread::scope(|scope| {
        let (ctx, s) = (&ctx, &s);
        scope
            .spawn(move || {
                let _bound = ctx.bind().unwrap();
                let exec = graph.instantiate(0).unwrap();
                exec.launch(s).unwrap();
                let sum: f32 = out.to_vec().unwrap().iter().sum();
                (sum, out)
            })
            .join()
            .unwrap()
    });
    assert_eq!(sum, 5.0 * n as f32, "3 * 1 + 2 per element");
    // And back: the buffer moved home is usable here again.
    assert_eq!(out.slice(..2).to_vec().unwrap(), [5.0, 5.0]);
    drop(out);
    assert!(cudagen::safe::take_drop_errors().is_empty());
    println!("summary: safe_threads moves PASS: a captured graph and a buffer moved to another thread, launched and read there");
}
