//! Builds the raw IR from the headers through `clang/`.

use crate::diag::Result;
use crate::ir::Api;
use crate::HeaderSet;

pub fn parse_headers(headers: &HeaderSet) -> Result<Api> {
    Ok(Api { cuda_version: headers.cuda_version.clone(), libraries: Vec::new() })
}
