//! The `cudarc` feature: our handles and cudarc's convert both ways at no cost, and cudarc's
//! safe objects work with our functions. The first tests need no GPU; the last runs on the GPU
//! machine (one skip line without a driver): a cudarc stream and cudarc buffers with our
//! `launch_kernel`, `memcpy_dtoh_async`, `mem_get_info` and stream capture into a graph, which
//! cudarc's safe layer does not offer in this form.

use cudagen::cudarc::{device_ptr, device_ptr_mut, AsHandle};
use cudagen::driver::{self, *};
use cudagen_tests::{compile_ptx, gpu_or_skip, random_floats, SAXPY};
use cudarc::driver::sys as rc;
use std::ffi::c_void;
use std::mem::{align_of, size_of};

/// Our opaque handle and cudarc's pointer type of the same C name: same layout, and a value
/// survives the round trip in both directions.
macro_rules! pointer_pairs {
    ($($name:ident),* $(,)?) => {{
        let mut n = 0;
        $(
            assert_eq!(size_of::<$name>(), size_of::<rc::$name>(), stringify!($name));
            assert_eq!(align_of::<$name>(), align_of::<rc::$name>(), stringify!($name));
            // SAFETY: a test value, never passed to a library.
            let ours = unsafe { $name::from_raw(0x5eed_0000usize as *mut c_void) };
            let theirs: rc::$name = ours.into();
            assert_eq!(theirs as usize, 0x5eed_0000, stringify!($name));
            // SAFETY: as above.
            assert_eq!(unsafe { $name::from_cudarc(theirs) }, ours, stringify!($name));
            let theirs: rc::$name = $name::null().into();
            assert!(theirs.is_null(), stringify!($name));
            n += 1;
        )*
        n
    }};
}

/// Integer handles: cudarc uses the C integer itself, which ours already convert from and to.
macro_rules! scalar_pairs {
    ($($name:ident),* $(,)?) => {{
        let mut n = 0;
        $(
            assert_eq!(size_of::<$name>(), size_of::<rc::$name>(), stringify!($name));
            assert_eq!(align_of::<$name>(), align_of::<rc::$name>(), stringify!($name));
            let theirs: rc::$name = 7 as rc::$name;
            let ours: $name = theirs.into();
            let back: rc::$name = ours.into();
            assert_eq!(back, theirs, stringify!($name));
            n += 1;
        )*
        n
    }};
}

#[test]
fn every_handle_converts_both_ways_with_one_layout() {
    let pointers = pointer_pairs!(
        CUcontext,
        CUmodule,
        CUfunction,
        CUlibrary,
        CUkernel,
        CUarray,
        CUmipmappedArray,
        CUtexref,
        CUsurfref,
        CUevent,
        CUstream,
        CUgraphicsResource,
        CUexternalMemory,
        CUexternalSemaphore,
        CUgraph,
        CUgraphNode,
        CUgraphExec,
        CUmemoryPool,
        CUuserObject,
        CUgraphDeviceNode,
        CUasyncCallbackHandle,
        CUgreenCtx,
        CUlinkState,
        CUdevResourceDesc,
        CUlogsCallbackHandle,
    );
    let scalars = scalar_pairs!(
        CUdeviceptr,
        CUdevice,
        CUtexObject,
        CUsurfObject,
        CUmemGenericAllocationHandle,
        CUgraphConditionalHandle,
        CUlogIterator,
    );
    println!("cudarc interop: {pointers} pointer handles, {scalars} integer handles");
    assert_eq!((pointers, scalars), (25, 7));
}

#[test]
fn cudarc_status_codes_become_ours() {
    assert_eq!(CUresult::from(rc::CUresult::CUDA_SUCCESS), CUresult::SUCCESS);
    assert_eq!(CUresult::from(rc::CUresult::CUDA_ERROR_OUT_OF_MEMORY), CUresult::ERROR_OUT_OF_MEMORY);
    let e: driver::Error = cudarc::driver::DriverError(rc::CUresult::CUDA_ERROR_NOT_FOUND).into();
    assert_eq!(e.code(), CUresult::ERROR_NOT_FOUND);
    assert!(e.to_string().contains("CUDA_ERROR_NOT_FOUND"), "{e}");
}

#[test]
fn gpu_cudarc_objects_with_our_calls() {
    if !gpu_or_skip("gpu_cudarc_objects_with_our_calls") {
        return;
    }
    let ctx = cudarc::driver::CudaContext::new(0).unwrap();
    driver::ctx_set_current(ctx.handle()).unwrap();
    let stream = ctx.new_stream().unwrap();
    let dev = driver::ctx_get_device().unwrap();
    assert_eq!(dev, CUdevice::from(ctx.cu_device()));
    let major = driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MAJOR, dev).unwrap();
    let minor = driver::device_get_attribute(CUdevice_attribute::COMPUTE_CAPABILITY_MINOR, dev).unwrap();
    let ptx = compile_ptx(SAXPY, c"saxpy.cu", &format!("compute_{major}{minor}")).unwrap();
    let module = ctx.load_module(cudarc::nvrtc::Ptx::from_src(ptx)).unwrap();
    let saxpy = module.load_function("saxpy").unwrap();

    // A function cudarc's safe layer lacks, on cudarc's context.
    let (free_before, total) = driver::mem_get_info().unwrap();
    assert!(total > 0 && free_before <= total, "free {free_before} of {total}");

    let n: usize = 1 << 20;
    let (xs, ys) = (random_floats(n, 1), random_floats(n, 2));
    let x = stream.clone_htod(&xs).unwrap();
    let y = stream.clone_htod(&ys).unwrap();
    let mut out = stream.alloc_zeros::<f32>(n).unwrap();
    let (free_after, _) = driver::mem_get_info().unwrap();
    assert!(free_after < free_before, "three {n}-float buffers took no memory: {free_before} -> {free_after}");

    // Our launch on cudarc's stream, cudarc's function and cudarc's buffers.
    let launch = |a: f32, out_ptr: CUdeviceptr, x_ptr: CUdeviceptr, y_ptr: CUdeviceptr| {
        let (mut a, mut px, mut py, mut po, mut n) = (a, x_ptr, y_ptr, out_ptr, n);
        let mut args: [*mut c_void; 5] =
            [(&raw mut a).cast(), (&raw mut px).cast(), (&raw mut py).cast(), (&raw mut po).cast(), (&raw mut n).cast()];
        let blocks = n.div_ceil(256) as u32;
        unsafe {
            driver::launch_kernel(
                saxpy.handle(),
                blocks,
                1,
                1,
                256,
                1,
                1,
                0,
                stream.handle(),
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        }
        .unwrap();
    };
    let (x_ptr, y_ptr, out_ptr);
    {
        let (px, _rx) = device_ptr(&x, &stream);
        let (py, _ry) = device_ptr(&y, &stream);
        let (po, _wo) = device_ptr_mut(&mut out, &stream);
        launch(2.0, po, px, py);
        (x_ptr, y_ptr, out_ptr) = (px, py, po);
    }
    let mut host = vec![0f32; n];
    let copy_back = |host: &mut Vec<f32>| {
        unsafe { driver::memcpy_dtoh_async(host.as_mut_ptr().cast(), out_ptr, n * 4, stream.handle()) }.unwrap();
        driver::stream_synchronize(stream.handle()).unwrap();
    };
    copy_back(&mut host);
    let worst = |a: f32, host: &[f32]| (0..n).map(|i| (host[i] - (a * xs[i] + ys[i])).abs()).fold(0f32, f32::max);
    assert_eq!(worst(2.0, &host), 0.0, "saxpy through our launch on cudarc's objects");
    // cudarc reads what our launch wrote, in stream order.
    assert_eq!(stream.clone_dtoh(&out).unwrap(), host);

    // A graph captured from cudarc's stream with our calls, replayed by ours.
    driver::stream_begin_capture(stream.handle(), CUstreamCaptureMode::THREAD_LOCAL).unwrap();
    launch(3.0, out_ptr, x_ptr, y_ptr);
    // SAFETY: the buffers and the kernel the graph replays outlive it (destroyed below).
    let graph = unsafe { driver::stream_end_capture(stream.handle()) }.unwrap();
    let mut nodes = [CUgraphNode::null(); 4];
    let mut count = nodes.len();
    unsafe { driver::graph_get_nodes(graph, Some(&mut nodes), &mut count) }.unwrap();
    assert_eq!(count, 1, "one kernel node captured");
    let exec = driver::graph_instantiate(graph, 0).unwrap();
    driver::graph_launch(exec, stream.handle()).unwrap();
    copy_back(&mut host);
    assert_eq!(worst(3.0, &host), 0.0, "saxpy replayed from the captured graph");
    let theirs: rc::CUgraph = graph.into();
    // SAFETY: the graph made above, still alive.
    assert_eq!(unsafe { CUgraph::from_cudarc(theirs) }, graph);
    // SAFETY: made above, idle after the copy back, each ended once.
    unsafe {
        driver::graph_exec_destroy(exec).unwrap();
        driver::graph_destroy(graph).unwrap();
    }
    println!("cudarc interop: saxpy on {n} floats through our launch on cudarc objects and a captured graph, exact");
}
