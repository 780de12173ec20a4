//! `driver::device_primary_ctx_release` under an owned primary context.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    driver::device_primary_ctx_release(driver::device_get(0)?)?;
    Ok(())
}
