//! `driver::memset_d32_async` through a raw address.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    driver::memset_d32_async(driver::CUdeviceptr::from(0x1000), 0, 4, s.as_raw())?;
    Ok(())
}
