//! `from_raw` on a handle type is `unsafe`: its caller promises the value is a live handle.
//! expect: E0133

use cudagen::driver;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    driver::init(0)?;
    let forged = driver::CUevent::from_raw(0x1000 as *mut std::ffi::c_void);
    driver::event_synchronize(forged)?;
    Ok(())
}
