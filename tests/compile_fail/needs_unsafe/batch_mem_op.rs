//! `Stream::batch_mem_op` with operations on raw addresses.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let op = driver::CUstreamBatchMemOpParams::default();
    s.batch_mem_op(&[op], 0)?;
    Ok(())
}
