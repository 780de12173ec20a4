//! `driver::memcpy2d` with `dstHost` set to an arbitrary address.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let copy = driver::CUDA_MEMCPY2D { dstHost: 0x1000 as *mut core::ffi::c_void, WidthInBytes: 4, Height: 1, ..Default::default() };
    driver::memcpy2d(&copy)?;
    Ok(())
}
