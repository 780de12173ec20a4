//! How each function returns, and whether its typed binding must be `unsafe`: the one decision
//! the Rust surface prints.

use crate::ir::{Function, Library, Param, Prim, ReturnShape, Role, Type};

pub fn run(lib: &mut Library) {
    for i in 0..lib.functions.len() {
        let f = &lib.functions[i];
        let returns = if f.ret.is_void() {
            ReturnShape::Void
        } else if lib.is_status(&f.ret) {
            ReturnShape::Status
        } else {
            ReturnShape::Value
        };
        let needs_unsafe = f.params.iter().any(|p| caller_promise(f, p));
        let f = &mut lib.functions[i];
        f.returns = returns;
        f.needs_unsafe = needs_unsafe;
    }
}

/// True when parameter `p` of `f` stays a raw pointer, a callback or a count the typed layer
/// cannot check, so its validity is the caller's promise.
pub fn caller_promise(f: &Function, p: &Param) -> bool {
    // A count that is not computed from the slices it sizes (none, or an in/out pointer).
    let unchecked = |len: &Option<String>| !len.as_deref().and_then(|l| f.param(l)).is_some_and(|q| matches!(q.role, Role::Length { .. }));
    match &p.role {
        r if r.is_raw() => true,
        // Each element's type differs: the typed layer keeps the pointer array raw.
        Role::SelectedValues { .. } => true,
        Role::Callback => true,
        Role::InArray { len } | Role::OutArray { len } => unchecked(len) || !fits(p),
        Role::OutBuffer { len: None, size_from: None, capacity: None, .. } => true,
        Role::OutBuffer { len: len @ Some(_), size_from: None, .. } => unchecked(len) || !fits(p),
        _ => !fits(p),
    }
}

/// True when the role can be typed for the parameter's C type (else the surface passes the raw
/// pointer through).
pub fn fits(p: &Param) -> bool {
    let pointee = p.ty.pointee();
    let not_void = |t: &Type| !t.is_void();
    let is_char = |t: &Type| matches!(t, Type::Prim { prim: Prim::Char | Prim::SChar | Prim::UChar });
    match &p.role {
        Role::Value => p.ty.pointee().is_none(),
        Role::Callback | Role::Length { .. } => true,
        Role::HostPtr | Role::Opaque | Role::UserData => false,
        Role::InRef | Role::InOutRef | Role::OutValue | Role::InArray { .. } | Role::OutArray { .. } => {
            pointee.is_some_and(|(t, _)| not_void(t))
        }
        Role::CStrIn => pointee.is_some_and(|(t, _)| is_char(t)),
        Role::CStrOut => pointee.is_some_and(|(t, _)| t.pointee().is_some_and(|(c, _)| is_char(c))),
        Role::OutBuffer { .. } => {
            pointee.is_some_and(|(t, c)| !c && (t.is_void() || is_char(t) || matches!(t, Type::Prim { prim: Prim::U8 | Prim::I8 })))
        }
        Role::SelectedValue { .. } => pointee.is_some(),
        Role::SelectedValues { .. } => false,
    }
}
