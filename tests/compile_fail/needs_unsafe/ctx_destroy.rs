//! `driver::ctx_destroy` of a context an owned type holds.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = Context::create(0, driver::device_get(0)?)?;
    driver::ctx_destroy(ctx.as_raw())?;
    Ok(())
}
