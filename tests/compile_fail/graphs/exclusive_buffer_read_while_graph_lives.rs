//! A buffer given to a graph as &mut stays exclusive for the graph's life.
//! expect: E0502

use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, Event, GraphBuilder, LaunchConfig, Module, Stream, StreamCapture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }")?;
    let k = module.get_function(c"k")?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 1)?;
    let cfg = LaunchConfig::linear(1, 1);
    let mut buf = buf;
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL)?;
    cap.launch(&k, cfg, (&mut buf,))?;
    let graph = cap.end()?;
    let read = buf.to_vec();
    graph.instantiate()?;
    Ok(())
}
