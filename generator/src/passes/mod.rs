//! IR -> IR passes, run in order by [`run_all`]: docs, handles, value tables, parameters,
//! return shapes and safety, names. Each pass is deterministic and reports bad annotations as errors with locations.

pub mod docs;
pub mod handles;
pub mod naming;
pub mod params;
pub mod shape;
pub mod sizes;
pub mod values;

use crate::annotations::Annotations;
use crate::diag::Result;
use crate::annotations::parse_version;
use crate::ir::{Api, LibraryKind};

pub fn run_all(api: &mut Api, annotations: &Annotations) -> Result<()> {
    docs::run(api);
    let cuda_version = header_cuda_version(api);
    for lib in &mut api.libraries {
        let ann = match lib.kind {
            LibraryKind::Driver => &annotations.driver,
            LibraryKind::Nvrtc => &annotations.nvrtc,
        };
        handles::run(lib, ann)?;
        values::run(lib, ann, cuda_version)?;
        params::run(lib, ann, cuda_version)?;
        shape::run(lib);
        sizes::run(lib);
        naming::run(lib);
    }
    Ok(())
}

/// `CUDA_VERSION` from `cuda.h` (e.g. 12090), else the version the headers were fetched as.
fn header_cuda_version(api: &Api) -> Option<u32> {
    api.cuda_version_macro().or_else(|| parse_version(&api.cuda_version))
}
