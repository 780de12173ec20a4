//! `Graph::add_memcpy_node` with `dstHost = 0x1000`.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let ctx = PrimaryContext::retain(driver::device_get(0)?)?;
    let _bound = ctx.bind()?;
    let g = Graph::create(0)?;
    let copy = driver::CUDA_MEMCPY3D { dstHost: 0x1000 as *mut core::ffi::c_void, WidthInBytes: 4, Height: 1, Depth: 1, ..Default::default() };
    let _n = g.add_memcpy_node(&[], &copy, &ctx.as_raw())?;
    Ok(())
}
