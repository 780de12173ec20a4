//! A function used after its module was dropped.
//! expect: E0505

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    let f = module.get_function(c"k")?;
    drop(module);
    drop(f);
    Ok(())
}
