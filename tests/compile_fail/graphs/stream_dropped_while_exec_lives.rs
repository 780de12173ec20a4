//! The home stream an executable graph launches on cannot be destroyed while it lives.
//! expect: E0505

use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, Event, GraphBuilder, LaunchConfig, Module, Stream, StreamCapture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }")?;
    let k = module.get_function(c"k")?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 1)?;
    let cfg = LaunchConfig::linear(1, 1);
    let mut b = GraphBuilder::new(&s)?;
    b.kernel(&[], &k, cfg, (&buf,))?;
    let exec = b.build()?.instantiate()?;
    drop(buf);
    drop(s);
    exec.launch()?;
    Ok(())
}
