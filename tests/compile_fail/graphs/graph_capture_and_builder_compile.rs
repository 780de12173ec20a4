//! The borrows in order: buffers and kernel outlive the executable; host reads between replays.
//! expect: compiles

use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, GraphBuilder, LaunchConfig, Module, Stream, StreamCapture};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }")?;
    let k = module.get_function(c"k")?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 1)?;
    let cfg = LaunchConfig::linear(1, 1);
    let mut cap = s.capture(CUstreamCaptureMode::GLOBAL)?;
    cap.launch(&k, cfg, (&buf,))?;
    let tmp = cap.alloc::<u32>(1)?;
    cap.copy(tmp, &buf)?;
    let graph = cap.end()?;
    let exec = graph.instantiate()?;
    let mut b = GraphBuilder::new(&s)?;
    let first = b.memset(&[], &buf, 0)?;
    b.child(&[first], &graph)?;
    let outer = b.build()?.instantiate()?;
    for _ in 0..3 {
        exec.launch()?;
        outer.launch()?;
        let _ = buf.to_vec()?;
    }
    drop((outer, exec, graph));
    buf.free()?;
    Ok(())
}
