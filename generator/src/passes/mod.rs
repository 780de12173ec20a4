//! IR -> IR passes, run in order by [`run_all`]: docs, handles, parameters, return shapes,
//! names. Each pass is deterministic and reports bad annotations as errors with locations.

pub mod docs;
pub mod handles;
pub mod naming;
pub mod params;
pub mod shape;

use crate::annotations::Annotations;
use crate::diag::Result;
use crate::ir::{Api, LibraryKind};

pub fn run_all(api: &mut Api, annotations: &Annotations) -> Result<()> {
    docs::run(api);
    for lib in &mut api.libraries {
        let ann = match lib.kind {
            LibraryKind::Driver => &annotations.driver,
            LibraryKind::Nvrtc => &annotations.nvrtc,
        };
        handles::run(lib, ann)?;
        params::run(lib, ann)?;
        shape::run(lib);
        naming::run(lib);
    }
    Ok(())
}
