//! Records -> `#[repr(C)]` structs/unions with C field names, zeroed `Default` and a compile-time
//! layout check (size, align, every field offset) against libclang's numbers.

use super::docs;
use super::types::Ctx;
use crate::ir::{Record, RecordKind, Type};
use serde::Serialize;

#[derive(Serialize)]
pub(super) struct RecordView {
    pub name: String,
    pub tag: Option<String>,
    pub is_union: bool,
    pub complete: bool,
    /// `C`, `C, align(64)` or `C, packed(N)`.
    pub repr: String,
    pub doc: Vec<String>,
    pub fields: Vec<FieldView>,
    pub size: u64,
    pub align: u64,
    /// Set when the fields cannot be spelled: the record is an opaque blob; the reason.
    pub blob: Option<String>,
}

#[derive(Serialize)]
pub(super) struct FieldView {
    pub name: String,
    pub ty: String,
    pub offset: u64,
    pub doc: Vec<String>,
}

/// Why the Rust surface cannot spell a record's fields (bitfields, a field type the IR does not
/// define); such records become an opaque blob of the right size and alignment.
pub(super) fn unsupported(ctx: &Ctx, r: &Record) -> Option<String> {
    if !r.complete {
        return None;
    }
    if let Some(f) = r.fields.iter().find(|f| f.bit_width.is_some()) {
        return Some(format!("bitfield `{}` is not supported", f.name));
    }
    for f in &r.fields {
        if let Some(missing) = undefined_name(ctx, &f.ty) {
            return Some(format!("field `{}` has type `{missing}`, which the IR does not define", f.name));
        }
    }
    None
}

fn undefined_name(ctx: &Ctx, ty: &Type) -> Option<String> {
    match ty {
        Type::Named { name } => (!ctx.defines(name)).then(|| name.clone()),
        Type::Array { elem, .. } => undefined_name(ctx, elem),
        Type::Pointer { .. } | Type::Prim { .. } | Type::FnPtr { .. } => None,
    }
}

pub(super) fn view(ctx: &Ctx, r: &Record) -> RecordView {
    if let Some(why) = unsupported(ctx, r) {
        return RecordView {
            name: r.name.clone(),
            tag: r.tag.clone().filter(|t| t != &r.name),
            is_union: r.kind == RecordKind::Union,
            complete: true,
            repr: format!("C, align({})", r.align.max(1)),
            doc: docs::lines(&r.doc),
            fields: Vec::new(),
            size: r.size,
            align: r.align,
            blob: Some(why),
        };
    }
    let natural = r.fields.iter().map(|f| ctx.align(&f.ty)).max().unwrap_or(1).max(1);
    let repr = if !r.complete || r.align == 0 || r.align == natural {
        "C".to_string()
    } else if r.align > natural {
        format!("C, align({})", r.align)
    } else {
        format!("C, packed({})", r.align)
    };
    let fields = r
        .fields
        .iter()
        .map(|f| FieldView {
            name: f.names.rust.clone(),
            ty: ctx.rust(&f.ty),
            offset: f.offset_bits / 8,
            doc: docs::lines(&f.doc),
        })
        .collect();
    RecordView {
        name: r.name.clone(),
        tag: r.tag.clone().filter(|t| t != &r.name),
        is_union: r.kind == RecordKind::Union,
        complete: r.complete,
        repr,
        doc: docs::lines(&r.doc),
        fields,
        size: r.size,
        align: r.align,
        blob: None,
    }
}
