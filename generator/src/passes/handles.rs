//! Integer typedefs that identify objects become scalar handles: the first typedef of a chain
//! that ends in an integer whose name is the library's `scalar_handle_prefix` (library.toml) and
//! then a lowercase letter (the driver's `CUdevice_v1`, `CUdeviceptr_v2`). Annotations add
//! (`[handles] scalar`) or remove (`not_scalar`) names.
//!
//! A parameter spelled through the record tag of an opaque handle (`struct cudaGraphicsResource
//! **resource` in the runtime's interop headers) is given the handle typedef's name
//! (`cudaGraphicsResource_t *`): the same C type, so it is an output handle as elsewhere.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Result};
use crate::ir::{Library, Resolved, Type, TypedefKind};
use std::collections::HashMap;

pub fn run(lib: &mut Library, ann: &LibraryAnnotations) -> Result<()> {
    for name in ann.handles.scalar.iter().chain(&ann.handles.not_scalar) {
        if lib.typedef(name).is_none() {
            return Err(Error::at(
                ann.location_of(name),
                format!("annotation names typedef `{name}`, which the header does not declare"),
            ));
        }
    }
    let prefix = lib.profile().scalar_handle_prefix.as_deref();
    for i in 0..lib.typedefs.len() {
        let t = &lib.typedefs[i];
        if !matches!(t.kind, TypedefKind::Alias) || ann.handles.not_scalar.contains(&t.name) {
            continue;
        }
        let forced = ann.handles.scalar.contains(&t.name);
        let looks_like_handle = prefix
            .is_some_and(|p| t.name.strip_prefix(p).and_then(|rest| rest.bytes().next()).is_some_and(|b| b.is_ascii_lowercase()));
        if let Resolved::Prim(prim) = lib.resolve(&t.target) {
            if prim.is_integer() && (forced || looks_like_handle) {
                lib.typedefs[i].kind = TypedefKind::ScalarHandle { prim };
            }
        }
    }
    spell_handles(lib);
    Ok(())
}

/// Replaces `struct T *` in parameter types by the one opaque handle typedef of `T *` (records
/// that two such typedefs name are left alone).
fn spell_handles(lib: &mut Library) {
    let mut by_record: HashMap<&Type, Option<String>> = HashMap::new();
    for t in &lib.typedefs {
        if matches!(t.kind, TypedefKind::OpaqueHandle { .. }) {
            by_record.entry(&t.target).and_modify(|n| *n = None).or_insert_with(|| Some(t.name.clone()));
        }
    }
    let names: HashMap<Type, String> = by_record.into_iter().filter_map(|(ty, n)| Some((ty.clone(), n?))).collect();
    for f in &mut lib.functions {
        for p in &mut f.params {
            respell(&mut p.ty, &names);
        }
    }
}

fn respell(ty: &mut Type, names: &HashMap<Type, String>) {
    if let Some(name) = names.get(ty) {
        *ty = Type::named(name.clone());
    } else if let Type::Pointer { pointee, .. } = ty {
        respell(pointee, names);
    }
}
