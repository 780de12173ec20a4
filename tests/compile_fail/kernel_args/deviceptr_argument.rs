//! A freed buffer's `CUdeviceptr` passed to a kernel.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    // SAFETY: (not kept: the address outlives `buf` below; the launch refuses it anyway).
    let addr = unsafe { buf.as_raw() };
    buf.free()?;
    s.launch(&f, LaunchConfig::linear(1, 32), (addr, 4u32))?;
    Ok(())
}
