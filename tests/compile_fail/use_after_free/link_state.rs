//! A driver JIT link state completed after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    // SAFETY: no options, so no option values.
    let l = unsafe { LinkState::create(&ctx, &[], &[]) }?;
    l.destroy()?;
    let _ = l.complete()?;
    Ok(())
}
