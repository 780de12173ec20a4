//! Top-level declarations of the library's files: enums, records, typedefs, functions.

use super::names::PublicNames;
use super::types::convert;
use super::Files;
use crate::clang::{Cursor, CursorKind, Ty, TyKind};
use crate::diag::{Errors, Result};
use crate::ir::*;
use std::collections::BTreeSet;

/// Fills `library` with the declarations of `files`.
pub fn collect(top: &[Cursor<'_>], files: &Files, names: &PublicNames, library: &mut Library) -> Result<()> {
    let mut names = names.clone();
    let mut seen_records = BTreeSet::new();
    let mut errors = Errors::default();
    for c in top.iter().filter(|c| files.declares(c)) {
        let result = match c.kind() {
            CursorKind::Enum if c.is_definition() => enumeration(c, &names, library),
            CursorKind::Struct | CursorKind::Union => {
                record(c, &mut names, &mut seen_records, library);
                Ok(())
            }
            CursorKind::Typedef => typedef(c, &mut names, &mut seen_records, library),
            CursorKind::Function if c.is_deprecated() && files.legacy_free.contains(&c.location().file) => Ok(()),
            CursorKind::Function => function(c, &names, library),
            _ => Ok(()),
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    errors.finish()
}

fn doc(c: &Cursor<'_>) -> Doc {
    Doc { brief: String::new(), markdown: c.raw_comment().unwrap_or_default() }
}

fn enumeration(c: &Cursor<'_>, names: &PublicNames, library: &mut Library) -> Result<()> {
    let Some(name) = names.of(c) else {
        library.skipped.push(Skipped {
            name: String::new(),
            what: "enum".into(),
            reason: "anonymous enum without a typedef".into(),
            location: c.location(),
        });
        return Ok(());
    };
    if library.enum_named(&name).is_some() {
        return Ok(());
    }
    let repr = prim_of(&c.enum_integer_type()).unwrap_or(Prim::UInt);
    let variants = c
        .children()
        .iter()
        .filter(|v| v.kind() == CursorKind::EnumConstant)
        .map(|v| EnumVariant {
            name: v.spelling(),
            value: if repr.is_signed() { v.enum_value() } else { v.enum_unsigned_value() as i64 },
            doc: doc(v),
            names: Names::default(),
        })
        .collect();
    let tag = tag_of(c);
    library.enums.push(Enum {
        name,
        tag,
        variants,
        is_flags: false,
        repr,
        doc: doc(c),
        location: c.location(),
        names: Names::default(),
    });
    Ok(())
}

fn prim_of(ty: &Ty<'_>) -> Option<Prim> {
    Some(match ty.canonical().kind() {
        TyKind::Int => Prim::Int,
        TyKind::UInt => Prim::UInt,
        TyKind::Long => Prim::Long,
        TyKind::ULong => Prim::ULong,
        TyKind::LongLong => Prim::LongLong,
        TyKind::ULongLong => Prim::ULongLong,
        TyKind::Short => Prim::Short,
        TyKind::UShort => Prim::UShort,
        TyKind::CharS | TyKind::CharU => Prim::Char,
        TyKind::SChar => Prim::SChar,
        TyKind::UChar => Prim::UChar,
        _ => return None,
    })
}

/// A struct/union declaration (complete or forward). Nested anonymous records are pushed first.
fn record(c: &Cursor<'_>, names: &mut PublicNames, seen: &mut BTreeSet<String>, library: &mut Library) {
    let Some(name) = names.of(c) else { return };
    record_named(c, name, false, names, seen, library);
}

fn record_named(
    c: &Cursor<'_>,
    name: String,
    anonymous: bool,
    names: &mut PublicNames,
    seen: &mut BTreeSet<String>,
    library: &mut Library,
) {
    // A forward declaration of a record defined later (`typedef struct X_st X;` before
    // `struct X_st { .. }`, CUDA 13.5) is read from its definition.
    let definition = c.ty().declaration();
    let c = if !c.is_definition() && definition.is_definition() { &definition } else { c };
    let complete = c.ty().size().is_some();
    if let Some(existing) = library.records.iter().position(|r| r.name == name) {
        // A forward declaration seen first is replaced by the definition.
        if library.records[existing].complete || !complete {
            return;
        }
        library.records.remove(existing);
    }
    seen.insert(c.usr());
    let kind = if c.kind() == CursorKind::Union { RecordKind::Union } else { RecordKind::Struct };
    let mut fields = Vec::new();
    let mut anon_index = 0;
    let ty = c.ty();
    if complete {
        let children = c.children();
        for (i, child) in children.iter().enumerate() {
            match child.kind() {
                CursorKind::Field => {
                    let fname = child.spelling();
                    let fty = child.ty();
                    // `struct { .. } field;`: an anonymous nested record gets `{Parent}_{field}`;
                    // a named one declared in place (`struct X_st { .. } field;`) keeps its tag.
                    if let Some(decl) = nested_record(&fty).filter(|d| !seen.contains(&d.usr())) {
                        let anonymous = decl.is_anonymous();
                        let nested_name = names.of(&decl).unwrap_or_else(|| format!("{name}_{fname}"));
                        names.insert(&decl, nested_name.clone());
                        record_named(&decl, nested_name, anonymous, names, seen, library);
                    }
                    let at = child.location();
                    let ty = match convert(&fty, names, &at) {
                        Ok(t) => t,
                        Err(e) => {
                            library.skipped.push(Skipped {
                                name: format!("{name}.{fname}"),
                                what: "field".into(),
                                reason: e.message,
                                location: at,
                            });
                            continue;
                        }
                    };
                    fields.push(Field {
                        name: fname,
                        ty,
                        offset_bits: child.field_offset_bits().unwrap_or(0),
                        bit_width: child.bit_width(),
                        anonymous: false,
                        doc: doc(child),
                        names: Names::default(),
                        count: None,
                        access: None,
                        kernel_params: false,
                        python_private: false,
                        read_only: false,
                    });
                }
                CursorKind::Struct | CursorKind::Union if child.is_anonymous_record_decl() => {
                    // C11 anonymous member: its fields are reached through the parent.
                    let fname = format!("anon{anon_index}");
                    anon_index += 1;
                    let nested_name = format!("{name}_{fname}");
                    names.insert(child, nested_name.clone());
                    record_named(child, nested_name.clone(), true, names, seen, library);
                    let offset = first_field_name(child).and_then(|f| ty.offset_of(&f)).unwrap_or(0);
                    fields.push(Field {
                        name: fname,
                        ty: Type::named(nested_name),
                        offset_bits: offset,
                        bit_width: None,
                        anonymous: true,
                        doc: doc(child),
                        names: Names::default(),
                        count: None,
                        access: None,
                        kernel_params: false,
                        python_private: false,
                        read_only: false,
                    });
                    let _ = i;
                }
                _ => {}
            }
        }
    }
    let tag = tag_of(c);
    library.records.push(Record {
        name,
        tag,
        kind,
        fields,
        complete,
        size: ty.size().unwrap_or(0),
        align: ty.align().unwrap_or(0),
        anonymous,
        doc: doc(c),
        location: c.location(),
        names: Names::default(),
    });
}

/// The C tag of a record or enum: none for an unnamed one, also when libclang spells it with
/// its typedef's name (`typedef struct { .. } T;` has the USR `c:@SA@T`; NVRTC 13.3 has one).
fn tag_of(c: &Cursor<'_>) -> Option<String> {
    let usr = c.usr();
    let typedef_named = ["@SA@", "@UA@", "@EA@"].iter().any(|m| usr.contains(m));
    Some(c.spelling()).filter(|t| !t.is_empty() && !c.is_anonymous() && !t.contains(' ') && !typedef_named)
}

/// The declaration of a record type used by a field (through arrays), if any.
fn nested_record<'tu>(ty: &Ty<'tu>) -> Option<Cursor<'tu>> {
    let mut t = *ty;
    while t.kind() == TyKind::ConstantArray {
        t = t.element();
    }
    if t.kind() == TyKind::Elaborated {
        t = t.named();
    }
    (t.kind() == TyKind::Record).then(|| t.declaration()).filter(|d| d.is_definition())
}

fn first_field_name(c: &Cursor<'_>) -> Option<String> {
    c.children().into_iter().find_map(|f| match f.kind() {
        CursorKind::Field => Some(f.spelling()),
        CursorKind::Struct | CursorKind::Union if f.is_anonymous_record_decl() => first_field_name(&f),
        _ => None,
    })
}

fn typedef(c: &Cursor<'_>, names: &mut PublicNames, seen: &mut BTreeSet<String>, library: &mut Library) -> Result<()> {
    let name = c.spelling();
    if Prim::from_std_typedef(&name).is_some() {
        return Ok(());
    }
    let at = c.location();
    let under = c.typedef_underlying();
    let mut inner = under;
    if inner.kind() == TyKind::Elaborated {
        inner = inner.named();
    }
    // The record/enum definition inside the typedef is a child cursor.
    if matches!(inner.kind(), TyKind::Record) {
        let decl = inner.declaration();
        if !seen.contains(&decl.usr()) {
            if let Some(n) = names.of(&decl) {
                record_named(&decl, n, false, names, seen, library);
            }
        }
    }
    if names.is_absorbed(&name) && matches!(inner.kind(), TyKind::Record | TyKind::Enum) {
        if inner.kind() == TyKind::Enum && library.enum_named(&name).is_none() {
            enumeration(&inner.declaration(), names, library)?;
        }
        return Ok(());
    }
    let target = convert(&under, names, &at)?;
    let kind = match (&target, inner.kind()) {
        (Type::FnPtr { ret, .. }, _) => {
            TypedefKind::Callback { ret: (**ret).clone(), params: callback_params(c, &under, names)? }
        }
        (Type::Pointer { pointee, .. }, TyKind::Pointer) => {
            let p = under.pointee();
            let p = if p.kind() == TyKind::Elaborated { p.named() } else { p };
            match (&**pointee, p.kind()) {
                (Type::Named { name: rec }, TyKind::Record) if p.size().is_none() => {
                    ensure_incomplete_record(rec, &p.declaration(), library);
                    TypedefKind::OpaqueHandle { record: rec.clone() }
                }
                _ => TypedefKind::Alias,
            }
        }
        (Type::Named { name: t }, TyKind::Record) => TypedefKind::RecordAlias { target: t.clone() },
        (Type::Named { name: t }, TyKind::Enum) => TypedefKind::EnumAlias { target: t.clone() },
        _ => TypedefKind::Alias,
    };
    library.typedefs.push(Typedef { name, target, kind, doc: doc(c), location: at, names: Names::default() });
    Ok(())
}

fn ensure_incomplete_record(name: &str, decl: &Cursor<'_>, library: &mut Library) {
    if library.record(name).is_none() {
        library.records.push(Record {
            name: name.to_string(),
            tag: Some(name.to_string()),
            kind: if decl.kind() == CursorKind::Union { RecordKind::Union } else { RecordKind::Struct },
            fields: Vec::new(),
            complete: false,
            size: 0,
            align: 0,
            anonymous: false,
            doc: Doc::default(),
            location: decl.location(),
            names: Names::default(),
        });
    }
}

fn callback_params(c: &Cursor<'_>, under: &Ty<'_>, names: &PublicNames) -> Result<Vec<CallbackParam>> {
    let at = c.location();
    let proto = if under.kind() == TyKind::Pointer { under.pointee() } else { *under };
    let param_names: Vec<String> = c.children().iter().filter(|p| p.kind() == CursorKind::Param).map(|p| p.spelling()).collect();
    proto
        .args()
        .iter()
        .enumerate()
        .map(|(i, t)| {
            Ok(CallbackParam {
                name: param_names.get(i).filter(|n| !n.is_empty()).cloned().unwrap_or_else(|| format!("arg{i}")),
                ty: convert(t, names, &at)?,
            })
        })
        .collect()
}

fn function(c: &Cursor<'_>, names: &PublicNames, library: &mut Library) -> Result<()> {
    let symbol = c.spelling();
    if library.functions.iter().any(|f| f.symbol == symbol) {
        return Ok(());
    }
    let at = c.location();
    let params = c
        .arguments()
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = p.spelling();
            let name = if name.is_empty() { format!("arg{i}") } else { name };
            Ok(Param::new(name, convert(&p.ty(), names, &p.location())?))
        })
        .collect::<Result<Vec<_>>>()?;
    let ret = convert(&c.result_type(), names, &at)?;
    let deprecated = c.is_deprecated().then(String::new);
    library.functions.push(Function { deprecated, doc: doc(c), location: at, ..Function::new(symbol, ret, params) });
    Ok(())
}
