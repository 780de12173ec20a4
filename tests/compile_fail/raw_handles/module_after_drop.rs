//! A module's raw handle kept past its unload, then asked for a function.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let m = Module::from_ptx(&ctx, c".version 8.0")?;
    let raw = m.as_raw();
    drop(m);
    driver::module_get_function(raw, c"k")?;
    Ok(())
}
