//! A handle cannot be made from an integer in safe code: the newtype's field is private.
//! expect: E0423 E0603

use cudagen::driver;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    driver::init(0)?;
    let forged = driver::CUstream(0x1000 as *mut std::ffi::c_void);
    driver::stream_synchronize(forged)?;
    Ok(())
}
