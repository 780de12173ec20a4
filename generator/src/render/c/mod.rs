//! The c surface.

use super::{Output, Templates};
use crate::diag::Result;
use crate::ir::Api;

pub fn render(_api: &Api, _templates: &Templates, _out: &mut Output) -> Result<()> {
    Ok(())
}
