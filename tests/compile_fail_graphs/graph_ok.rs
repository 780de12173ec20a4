// compiles
// The borrows in order: buffers and kernel outlive the executable; host reads between replays.
use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, GraphBuilder, LaunchConfig, Module, Stream, StreamCapture};

fn main() {
    let ctx = Context::create(0, driver::device_get(0).unwrap()).unwrap();
    let s = Stream::create(&ctx, 0).unwrap();
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }").unwrap();
    let k = module.get_function(c"k").unwrap();
    let buf = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let cfg = LaunchConfig::linear(1, 1);
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
    cap.launch(&k, cfg, (&buf,)).unwrap();
    let tmp = cap.alloc::<u32>(1).unwrap();
    cap.copy(tmp, &buf).unwrap();
    let graph = cap.end().unwrap();
    let exec = graph.instantiate().unwrap();
    let mut b = GraphBuilder::new(&s).unwrap();
    let first = b.memset(&[], &buf, 0).unwrap();
    b.child(&[first], &graph).unwrap();
    let outer = b.build().instantiate().unwrap();
    for _ in 0..3 {
        exec.launch().unwrap();
        outer.launch().unwrap();
        let _ = buf.to_vec().unwrap();
    }
    drop((outer, exec, graph));
    buf.free().unwrap();
}
