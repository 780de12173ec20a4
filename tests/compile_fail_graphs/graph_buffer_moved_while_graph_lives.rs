// error: E0505
// A buffer a graph uses cannot be moved to another stream while the graph lives.
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
    let other = Stream::create(&ctx, 0).unwrap();
    let mut b = GraphBuilder::new(&s).unwrap();
    b.memset(&[], &buf, 0).unwrap();
    let graph = b.build();
    let moved = buf.move_to(&other).unwrap();
    graph.instantiate().unwrap();
}
