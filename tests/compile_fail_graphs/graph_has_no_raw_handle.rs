// error: E0599
// A graph gives no raw handle (a raw executable could outlive the borrows).
#![allow(unused)]
use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, Event, GraphBuilder, LaunchConfig, Module, Stream, StreamCapture};

fn main() {
    let ctx = Context::create(0, driver::device_get(0).unwrap()).unwrap();
    let s = Stream::create(&ctx, 0).unwrap();
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }").unwrap();
    let k = module.get_function(c"k").unwrap();
    let buf = DeviceBuffer::<u32>::zeroed(&s, 1).unwrap();
    let cfg = LaunchConfig::linear(1, 1);
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL).unwrap();
    cap.launch(&k, cfg, (&buf,)).unwrap();
    let graph = cap.end().unwrap();
    let _raw = graph.as_raw();
}
