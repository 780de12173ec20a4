//! A function's handle copied out through `Launchable`, used after the unload.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let m = Module::from_ptx(&ctx, c".version 8.0")?;
    let raw = m.get_function(c"k")?.raw_function();
    drop(m);
    driver::func_get_attribute(driver::CUfunction_attribute::NUM_REGS, raw)?;
    Ok(())
}
