//! A graph captured with the owned stream's `end_capture`, then the buffer it writes freed and
//! the graph replayed: `end_capture` hands out captured work that borrows nothing, so it is
//! `unsafe` (the safe way is `stream.capture(..)`, whose graph borrows the buffer).
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    let stream = Stream::create(&ctx, 0)?;
    let y = DeviceBuffer::<f32>::zeroed(&stream, 16)?;
    stream.begin_capture(driver::CUstreamCaptureMode::THREAD_LOCAL)?;
    stream.launch(&f, LaunchConfig::for_elements(16, 16), (&y,))?;
    let graph = stream.end_capture()?;
    drop(y);
    graph.instantiate(0)?.launch(&stream)?;
    Ok(())
}
