//! A module asked for a function after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let module = Module::from_ptx(&ctx, c".version 8.0")?;
    module.destroy()?;
    let _f = module.get_function(c"k")?;
    Ok(())
}
