//! Integer typedefs that identify driver objects become scalar handles (`CUdevice_v1`,
//! `CUdeviceptr_v2`, `CUtexObject_v1`, ...): the first `CU*` typedef of a chain that ends in an
//! integer. Annotations add (`[handles] scalar`) or remove (`not_scalar`) names.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Result};
use crate::ir::{Library, Resolved, TypedefKind};

pub fn run(lib: &mut Library, ann: &LibraryAnnotations) -> Result<()> {
    for name in ann.handles.scalar.iter().chain(&ann.handles.not_scalar) {
        if lib.typedef(name).is_none() {
            return Err(Error::at(
                ann.location_of(name),
                format!("annotation names typedef `{name}`, which the header does not declare"),
            ));
        }
    }
    for i in 0..lib.typedefs.len() {
        let t = &lib.typedefs[i];
        if !matches!(t.kind, TypedefKind::Alias) || ann.handles.not_scalar.contains(&t.name) {
            continue;
        }
        let forced = ann.handles.scalar.contains(&t.name);
        let looks_like_handle = t.name.starts_with("CU") && t.name.as_bytes().get(2).is_some_and(|b| b.is_ascii_lowercase());
        if let Resolved::Prim(prim) = lib.resolve(&t.target) {
            if prim.is_integer() && (forced || looks_like_handle) {
                lib.typedefs[i].kind = TypedefKind::ScalarHandle { prim };
            }
        }
    }
    Ok(())
}
