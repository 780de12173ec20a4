//! A buffer's address passed to a kernel as a plain integer (`buf.as_raw().0`).
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    s.launch(&f, LaunchConfig::linear(1, 32), (buf.as_raw().0, 4u32))?;
    Ok(())
}
