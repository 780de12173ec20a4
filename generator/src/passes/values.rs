//! Member type tables of selector enums (`[value_types.CUpointer_attribute]` in the annotations):
//! which C type the value of a `selected_value` parameter has for each enum member. Every enum,
//! member and type named must exist in the header.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{Library, Prim, Resolved, Type, ValueCount, ValueMember, ValueTable};

pub fn run(lib: &mut Library, ann: &LibraryAnnotations) -> Result<()> {
    let mut errors = Errors::default();
    let mut tables = Vec::new();
    for (enum_name, members) in &ann.value_types {
        let at = ann.location_of(enum_name);
        let Some(e) = lib.enum_named(enum_name) else {
            errors.push(Error::at(at, format!("value_types names enum `{enum_name}`, which the header does not declare")));
            continue;
        };
        let mut table = ValueTable { enum_name: e.name.clone(), members: Vec::new() };
        for v in &e.variants {
            let Some(spec) = members.get(&v.name) else { continue };
            match parse_type(lib, spec).and_then(|(ty, boolean, count)| Ok((type_size(lib, &ty)?, ty, boolean, count))) {
                Ok((size, ty, boolean, count)) => {
                    table.members.push(ValueMember { variant: v.name.clone(), value: v.value, ty, size, boolean, count })
                }
                Err(why) => errors.push(Error::at(at.clone(), format!("value_types.{enum_name}.{}: {why}", v.name))),
            }
        }
        for m in members.keys().filter(|m| !e.variants.iter().any(|v| &v.name == *m)) {
            errors.push(Error::at(at.clone(), format!("value_types.{enum_name} names `{m}`, which is not a member of the enum")));
        }
        tables.push(table);
    }
    lib.value_types = tables;
    errors.finish()
}

/// `"CUcontext"`, `"bool"`, `"unsigned int"`, `"void*"`, `"int[]"`, `"char[1024]"`.
fn parse_type(lib: &Library, spec: &str) -> std::result::Result<(Type, bool, ValueCount), String> {
    let spec = spec.trim();
    let (base, count) = match spec.split_once('[') {
        None => (spec, ValueCount::One),
        Some((b, rest)) => {
            let n = rest.strip_suffix(']').ok_or_else(|| format!("`{spec}`: missing `]`"))?.trim();
            let count = if n.is_empty() {
                ValueCount::Sized
            } else {
                ValueCount::Fixed { n: n.parse().map_err(|_| format!("`{spec}`: bad array length"))? }
            };
            (b.trim(), count)
        }
    };
    if base == "bool" {
        return Ok((Type::prim(Prim::Int), true, count));
    }
    if let Some(p) = prim_named(base) {
        return Ok((p, false, count));
    }
    let ty = Type::named(base);
    match lib.resolve(&ty) {
        Resolved::Unknown => Err(format!("`{base}` is not a type of the header")),
        Resolved::Record(r) if !r.complete => Err(format!("`{base}` is incomplete")),
        _ => Ok((ty, false, count)),
    }
}

/// Bytes of one value of `ty` (prims, enums, handles, complete records, pointers).
fn type_size(lib: &Library, ty: &Type) -> std::result::Result<u64, String> {
    match lib.resolve(ty) {
        Resolved::Prim(p) => Ok(p.size()),
        Resolved::Enum(e) => Ok(e.repr.size()),
        Resolved::ScalarHandle(_, p) => Ok(p.size()),
        Resolved::OpaqueHandle(_) | Resolved::Pointer { .. } => Ok(8),
        Resolved::Record(r) if r.complete => Ok(r.size),
        _ => Err(format!("`{}` has no known size", ty.c_decl(""))),
    }
}

fn prim_named(s: &str) -> Option<Type> {
    let p = match s {
        "char" => Prim::Char,
        "int" => Prim::Int,
        "unsigned int" => Prim::UInt,
        "long long" => Prim::LongLong,
        "unsigned long long" => Prim::ULongLong,
        "size_t" => Prim::SizeT,
        "float" => Prim::Float,
        "double" => Prim::Double,
        "void*" => return Some(Type::ptr(Type::prim(Prim::Void), false)),
        _ => return None,
    };
    Some(Type::prim(p))
}
