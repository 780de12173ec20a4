//! `Graph::add_mem_free_node` of a buffer the safe layer frees too.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let s = Stream::create(&ctx, 0)?;
    let mut buf = DeviceBuffer::<u32>::zeroed(&s, 16)?;
    let g = Graph::create(0)?;
    let _n = g.add_mem_free_node(&[], buf.as_raw())?;
    Ok(())
}
