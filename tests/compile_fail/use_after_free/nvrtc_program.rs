//! An NVRTC program asked for PTX after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let p = Program::create_program(c"", None, &[], &[])?;
    p.destroy()?;
    let _ = p.get_ptx()?;
    Ok(())
}
