//! A graph instantiated after `destroy`.
//! expect: E0382

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let g = Graph::create(0)?;
    g.destroy()?;
    let _exec = g.instantiate(0)?;
    Ok(())
}
