//! `driver::stream_destroy` on an owned stream's handle (then its drop would destroy it again).
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    driver::stream_destroy(s.as_raw())?;
    Ok(())
}
