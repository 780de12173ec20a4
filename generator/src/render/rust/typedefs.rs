//! Typedefs (handles, aliases, callbacks) and macro constants.

use super::docs;
use super::types::{ident, prim, Ctx};
use crate::ir::{MacroConst, MacroValue, Prim, Type, Typedef, TypedefKind};
use serde::Serialize;

/// How a typedef is spelled in Rust.
#[derive(Serialize, serde::Deserialize, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub(super) enum TypedefShape {
    OpaqueHandle,
    ScalarHandle,
    Alias,
    Callback,
}

#[derive(Serialize)]
pub(super) struct TypedefView {
    pub name: String,
    pub kind: TypedefShape,
    /// Alias target / scalar handle integer type / callback fn type.
    pub target: String,
    pub doc: Vec<String>,
    /// Declared in the main header of a library cudarc binds (`cuda.h`, not the interop headers).
    pub in_cudarc: bool,
}

pub(super) fn view(ctx: &Ctx, t: &Typedef) -> TypedefView {
    let (kind, target) = match &t.kind {
        _ if ctx.lib.shared_handle(&t.name).is_some() => (TypedefShape::Alias, ctx.handle_path(&t.name)),
        TypedefKind::OpaqueHandle { .. } => (TypedefShape::OpaqueHandle, String::new()),
        TypedefKind::ScalarHandle { prim: p } => (TypedefShape::ScalarHandle, prim(*p).to_string()),
        TypedefKind::Callback { ret, params } => {
            let ps: Vec<String> = params.iter().map(|p| format!("{}: {}", ident(&p.name), ctx.rust(&p.ty))).collect();
            (TypedefShape::Callback, format!("Option<unsafe extern \"C\" fn({}){}>", ps.join(", "), ctx.ret_suffix(ret)))
        }
        TypedefKind::EnumAlias { .. } | TypedefKind::RecordAlias { .. } | TypedefKind::Alias => {
            (TypedefShape::Alias, ctx.rust(&t.target))
        }
    };
    let profile = ctx.lib.profile();
    let in_cudarc = profile.cudarc && t.location.file == profile.header;
    TypedefView { name: t.name.clone(), kind, target, doc: docs::lines(&t.doc), in_cudarc }
}

#[derive(Serialize)]
pub(super) struct ConstView {
    pub name: String,
    pub ty: String,
    pub value: String,
    pub doc: Vec<String>,
}

/// `None` (with the reason) when the macro cannot be a Rust const.
pub(super) fn macro_view(ctx: &Ctx, m: &MacroConst) -> Result<ConstView, String> {
    let (ty, value) = match &m.value {
        MacroValue::Int { value, unsigned } => {
            let ty = match (*unsigned, *value) {
                (false, v) if i32::try_from(v).is_ok() => "c_int",
                (false, v) if i64::try_from(v).is_ok() => "c_longlong",
                (true, v) if u32::try_from(v).is_ok() => "c_uint",
                (true, v) if u64::try_from(v).is_ok() => "c_ulonglong",
                _ => return Err(format!("macro {}: value {value} does not fit 64 bits", m.name)),
            };
            (ty.to_string(), value.to_string())
        }
        MacroValue::Float { value } => ("f64".to_string(), format!("{value:?}")),
        MacroValue::Str { value } => ("&str".to_string(), docs::str_literal(value)),
        MacroValue::EnumConst { enum_name, variant, .. } => {
            let e = ctx.lib.enum_named(enum_name).ok_or_else(|| format!("macro {}: unknown enum {enum_name}", m.name))?;
            let i = e
                .variants
                .iter()
                .position(|v| &v.name == variant)
                .ok_or_else(|| format!("macro {}: unknown variant {variant}", m.name))?;
            let value = format!("{enum_name}::{}", super::enums::const_names(e)[i]);
            (enum_name.clone(), value)
        }
        MacroValue::Cast { ty, value } => match ty {
            Type::Pointer { .. } => (ctx.rust(ty), format!("{value} as {}", ctx.rust(ty))),
            Type::Prim { prim: p } if *p != Prim::Void => (prim(*p).to_string(), format!("{value} as {}", prim(*p))),
            Type::Named { .. } => match ctx.handle_struct(ty) {
                Some((h, true)) => (ctx.rust(ty), format!("{}({value} as *mut c_void)", ctx.handle_path(&h.name))),
                Some((h, false)) => (ctx.rust(ty), format!("{}({value})", ctx.handle_path(&h.name))),
                None => return Err(format!("macro {}: cast to {} is not a handle", m.name, ctx.rust(ty))),
            },
            _ => return Err(format!("macro {}: unsupported cast", m.name)),
        },
    };
    Ok(ConstView { name: m.name.clone(), ty, value, doc: docs::lines(&m.doc) })
}
