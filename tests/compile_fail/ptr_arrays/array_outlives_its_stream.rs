//! A device pointer array cannot outlive the stream it is bound to.
//! expect: E0505

use cudagen::driver::{self, CUstreamCaptureMode};
use cudagen::safe::{Context, DeviceBuffer, DevicePtrArray, LaunchConfig, Module, Stream, StreamCapture, StreamLaunch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    let s = Stream::create(&ctx, 0)?;
    let module = Module::from_ptx(&ctx, ".entry k(.param .u64 p) { ret; }")?;
    let k = module.get_function(c"k")?;
    let cfg = LaunchConfig::linear(1, 1);
    let a = DeviceBuffer::<f32>::zeroed(&s, 4)?;
    let mut b = DeviceBuffer::<f32>::zeroed(&s, 4)?;
    let other = Stream::create(&ctx, 0)?;
    let c = DeviceBuffer::<f32>::zeroed(&other, 4)?;
    let arr = DevicePtrArray::new(&other, [&c])?;
    drop(other);
    let _ = (arr.len(), &a, &mut b);
    Ok(())
}
