//! `nvrtc::destroy_program` of an owned program's handle.
//! expect: E0133

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let p = Program::create_program(c"", None, &[], &[])?;
    let mut raw = p.as_raw();
    cudagen::nvrtc::destroy_program(&mut raw)?;
    Ok(())
}
