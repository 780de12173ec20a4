// error: E0505
// An event a graph node records cannot be destroyed while the graph lives.
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
    let event = Event::create(&ctx, 0).unwrap();
    let mut b = GraphBuilder::new(&s).unwrap();
    b.record(&[], &event).unwrap();
    let graph = b.build();
    drop(event);
    graph.instantiate().unwrap();
}
