//! A graph node used after its graph was dropped.
//! expect: E0505

use cudagen::driver;
use cudagen::safe::*;

type R = Result<(), Box<dyn std::error::Error>>;

fn main() -> R {
    let g = Graph::create(0)?;
    let node = g.add_empty_node(&[])?;
    drop(g);
    node.destroy()?;
    Ok(())
}
