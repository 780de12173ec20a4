//! `driver::module_unload` of an owned module's handle.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    driver::module_unload(module.as_raw())?;
    Ok(())
}
