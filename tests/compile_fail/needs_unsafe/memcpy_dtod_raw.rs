//! `driver::memcpy_dtod` between raw addresses.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    driver::memcpy_dtod(driver::CUdeviceptr::from(0x1000), driver::CUdeviceptr::from(0x2000), 4)?;
    Ok(())
}
