//! Member type tables of selector enums (`[value_types.CUpointer_attribute]` in the annotations):
//! which C type the value of a `selected_value` parameter has for each enum member. Every enum,
//! member and type named must exist in the header.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{Library, Prim, Resolved, Type, ValueCount, ValueMember, ValueTable};

/// `cuda_version` (e.g. 12090) lets `[since]` entries named `Enum` or `Enum.MEMBER` be absent
/// from older headers.
pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors::default();
    let mut tables = Vec::new();
    for (enum_name, members) in &ann.value_types {
        let at = ann.location_of(enum_name);
        let Some(e) = lib.enum_named(enum_name) else {
            if ann.may_be_absent(enum_name, cuda_version) {
                continue;
            }
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
        let absent = |m: &str| !e.variants.iter().any(|v| v.name == m);
        for m in members.keys().filter(|m| absent(m) && !ann.may_be_absent(&format!("{enum_name}.{m}"), cuda_version)) {
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
        // C `bool`, one byte: the setters' `size` must say so (cuCoredumpSetAttribute checks it)
        return Ok((Type::prim(Prim::Bool), true, count));
    }
    let ty = type_spelled(base);
    if matches!(ty, Type::Prim { .. } | Type::Pointer { .. }) {
        return Ok((ty, false, count));
    }
    match lib.resolve(&ty) {
        Resolved::Unknown => Err(format!("`{base}` is not a type of the header")),
        Resolved::Record(r) if !r.complete => Err(format!("`{base}` is incomplete")),
        _ => Ok((ty, false, count)),
    }
}

/// The type a single-value spelling names (`"void*"`, `"unsigned int"`, `"CUdeviceptr"`), not
/// yet checked against the header ([`type_size`] does).
pub(crate) fn type_spelled(spec: &str) -> Type {
    let spec = spec.trim();
    prim_named(spec).unwrap_or_else(|| Type::named(spec))
}

/// Bytes of one value of `ty` (prims, enums, handles, complete records, pointers).
pub(crate) fn type_size(lib: &Library, ty: &Type) -> std::result::Result<u64, String> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Doc, Enum, EnumVariant, Location, Names};

    fn lib() -> Library {
        let mut lib = Library::new(crate::profile::kind("driver"));
        let v = |name: &str, value| EnumVariant { name: name.into(), value, doc: Doc::default(), names: Names::default() };
        lib.enums.push(Enum {
            name: "attr".into(),
            tag: None,
            variants: vec![v("A_CTX", 1), v("A_FLAG", 2), v("A_PATH", 3)],
            is_flags: false,
            repr: Prim::UInt,
            doc: Doc::default(),
            location: Location::default(),
            names: Names::default(),
        });
        lib
    }

    fn ann(text: &str) -> LibraryAnnotations {
        LibraryAnnotations::parse("t.toml", text).unwrap()
    }

    #[test]
    fn member_types_sizes_and_counts() {
        let mut l = lib();
        run(&mut l, &ann("[value_types.attr]\nA_CTX = \"void*\"\nA_FLAG = \"bool\"\nA_PATH = \"char[16]\"\n"), None).unwrap();
        let t = l.value_table("attr").unwrap();
        let sizes: Vec<(u64, bool, ValueCount)> = t.members.iter().map(|m| (m.size, m.boolean, m.count)).collect();
        assert_eq!(sizes, vec![(8, false, ValueCount::One), (1, true, ValueCount::One), (1, false, ValueCount::Fixed { n: 16 })]);
    }

    #[test]
    fn names_that_name_nothing_are_errors() {
        for text in [
            "[value_types.nope]\nA_CTX = \"int\"\n",
            "[value_types.attr]\nA_NONE = \"int\"\n",
            "[value_types.attr]\nA_CTX = \"CUnothing\"\n",
        ] {
            assert!(run(&mut lib(), &ann(text), None).is_err(), "{text}");
        }
        // Unless `[since]` says the member is newer than these headers.
        let text = "[value_types.attr]\nA_NEW = \"int\"\n[since]\n\"attr.A_NEW\" = \"12.9\"\n";
        assert!(run(&mut lib(), &ann(text), Some(12000)).is_ok());
        assert!(run(&mut lib(), &ann(text), Some(12090)).is_err());
    }
}
