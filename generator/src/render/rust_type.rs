//! C types -> Rust spellings: the one spelling of the `sys` layer and of the C shim's exports,
//! which differ only in how they name primitives.

use crate::ir::{Prim, Type};

/// How primitives are spelled: `c_int` (the file imports `core::ffi::*`) or `::core::ffi::c_int`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Prims {
    Short,
    Path,
}

impl Prims {
    pub fn name(self, p: Prim) -> &'static str {
        let full = p.rust_name();
        match self {
            Prims::Short => full.strip_prefix("::core::ffi::").unwrap_or(full),
            Prims::Path => full,
        }
    }
}

/// The Rust spelling of a C type (`void` alone is `()`; a pointer to it `*mut c_void`).
pub(crate) fn spell(ty: &Type, prims: Prims) -> String {
    match ty {
        Type::Prim { prim: Prim::Void } => "()".into(),
        Type::Prim { prim } => prims.name(*prim).into(),
        Type::Named { name } => name.clone(),
        Type::Pointer { pointee, is_const } => {
            let inner = if pointee.is_void() { prims.name(Prim::Void).to_string() } else { spell(pointee, prims) };
            format!("*{} {inner}", if *is_const { "const" } else { "mut" })
        }
        Type::Array { elem, len } => format!("[{}; {len}]", spell(elem, prims)),
        Type::FnPtr { ret, params } => {
            let ps: Vec<String> = params.iter().map(|p| spell(p, prims)).collect();
            format!("Option<unsafe extern \"C\" fn({}){}>", ps.join(", "), ret_suffix(ret, prims))
        }
    }
}

/// ` -> T` for a function's return type (empty for `void`).
pub(crate) fn ret_suffix(ret: &Type, prims: Prims) -> String {
    if ret.is_void() {
        String::new()
    } else {
        format!(" -> {}", spell(ret, prims))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_spellings_differ_only_in_primitives() {
        let cb = Type::FnPtr { ret: Box::new(Type::prim(Prim::Int)), params: vec![Type::ptr(Type::prim(Prim::Void), true)] };
        let ty = Type::ptr(Type::Array { elem: Box::new(cb), len: 2 }, false);
        assert_eq!(spell(&ty, Prims::Short), "*mut [Option<unsafe extern \"C\" fn(*const c_void) -> c_int>; 2]");
        let path = "*mut [Option<unsafe extern \"C\" fn(*const ::core::ffi::c_void) -> ::core::ffi::c_int>; 2]";
        assert_eq!(spell(&ty, Prims::Path), path);
        assert_eq!(spell(&Type::prim(Prim::Void), Prims::Path), "()");
    }
}
