//! A device array of raw addresses cannot be built from host values in safe code.
//! expect: E0277

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let _ptrs = DeviceBuffer::from_host(&s, &[driver::CUdeviceptr::from(0x1000)])?;
    Ok(())
}
