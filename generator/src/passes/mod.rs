//! IR -> IR passes, run in order by [`run_all`].

use crate::annotations::Annotations;
use crate::diag::Result;
use crate::ir::Api;

pub fn run_all(_api: &mut Api, _annotations: &Annotations) -> Result<()> {
    Ok(())
}
