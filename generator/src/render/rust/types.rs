//! C types -> Rust spellings, layout facts and trace conversions, resolved against one library.

use crate::ir::{Library, Prim, Resolved, Type, Typedef};

/// How a value of some type is shown by the tracer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TraceKind {
    Signed,
    Unsigned,
    Size,
    Float,
    Bool,
    /// Integer handle (`CUdeviceptr`): hex.
    Hex,
    /// Pointer handle (`CUcontext`): hex of the address.
    PtrHandle,
    Enum,
    Ptr,
    FnPtr,
    /// A record by value: its address.
    Record,
}

pub(super) struct Ctx<'a> {
    pub lib: &'a Library,
}

/// Short spelling of a primitive (`c_int`, `usize`); the files import `core::ffi::*` names.
pub(super) fn prim(p: Prim) -> &'static str {
    let full = p.rust_name();
    full.strip_prefix("::core::ffi::").unwrap_or(full)
}

pub(super) use crate::passes::naming::rust_ident as ident;

/// `r#type` -> `type`: the base for derived local names (`type_ptrs`).
pub(super) fn bare(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

impl<'a> Ctx<'a> {
    pub fn new(lib: &'a Library) -> Self {
        Ctx { lib }
    }

    /// The library defines `name` (a typedef, enum or record).
    pub fn defines(&self, name: &str) -> bool {
        self.lib.typedef(name).is_some() || self.lib.enum_named(name).is_some() || self.lib.record(name).is_some()
    }

    /// The Rust spelling of a C type.
    pub fn rust(&self, ty: &Type) -> String {
        match ty {
            Type::Prim { prim: p } => {
                if *p == Prim::Void {
                    "()".into()
                } else {
                    prim(*p).into()
                }
            }
            Type::Named { name } => name.clone(),
            Type::Pointer { pointee, is_const } => {
                let inner = match &**pointee {
                    Type::Prim { prim: Prim::Void } => "c_void".to_string(),
                    Type::FnPtr { .. } => self.rust(pointee),
                    other => self.rust(other),
                };
                format!("*{} {inner}", if *is_const { "const" } else { "mut" })
            }
            Type::Array { elem, len } => format!("[{}; {len}]", self.rust(elem)),
            Type::FnPtr { ret, params } => {
                let ps: Vec<String> = params.iter().map(|p| self.rust(p)).collect();
                format!("Option<unsafe extern \"C\" fn({}){}>", ps.join(", "), self.ret_suffix(ret))
            }
        }
    }

    /// ` -> T` for a function return type (empty for `void`).
    pub fn ret_suffix(&self, ret: &Type) -> String {
        if ret.is_void() {
            String::new()
        } else {
            format!(" -> {}", self.rust(ret))
        }
    }

    /// Alignment in bytes of a C type on LP64 (0 when unknown).
    pub fn align(&self, ty: &Type) -> u64 {
        match self.lib.resolve(ty) {
            Resolved::Prim(p) => p.size().max(1),
            Resolved::Enum(e) => e.repr.size(),
            Resolved::Record(r) => r.align,
            Resolved::OpaqueHandle(_) | Resolved::Callback(_) | Resolved::Pointer { .. } | Resolved::FnPtr => 8,
            Resolved::ScalarHandle(_, p) => p.size(),
            Resolved::Array { elem, .. } => self.align(elem),
            Resolved::Unknown => 0,
        }
    }

    /// How the tracer shows a value of `ty`.
    pub fn trace_kind(&self, ty: &Type) -> TraceKind {
        match self.lib.resolve(ty) {
            Resolved::Prim(p) => match p {
                Prim::Bool => TraceKind::Bool,
                Prim::Float | Prim::Double => TraceKind::Float,
                Prim::SizeT => TraceKind::Size,
                p if p.is_signed() => TraceKind::Signed,
                _ => TraceKind::Unsigned,
            },
            Resolved::Enum(_) => TraceKind::Enum,
            Resolved::Record(_) => TraceKind::Record,
            Resolved::OpaqueHandle(_) => TraceKind::PtrHandle,
            Resolved::ScalarHandle(_, p) if p.is_signed() => TraceKind::Signed,
            Resolved::ScalarHandle(..) => TraceKind::Hex,
            Resolved::Callback(_) | Resolved::FnPtr => TraceKind::FnPtr,
            Resolved::Pointer { .. } | Resolved::Array { .. } | Resolved::Unknown => TraceKind::Ptr,
        }
    }

    /// The traced value of parameter `p` (Rust name `name`) after the call: a `const char *` the
    /// IR calls an input string is read as a string; a single output value (`CUdeviceptr *dptr`)
    /// is shown as what the callee wrote (when the call succeeded: `status` functions return
    /// `__r`), not as the slot's address; anything else as its own value.
    pub fn trace_param(&self, p: &crate::ir::Param, name: &str, status: bool) -> String {
        use crate::ir::Role;
        match (&p.role, &p.ty) {
            (Role::CStrIn, Type::Pointer { pointee, is_const: true }) if Self::is_char(pointee) => self.trace_value(&p.ty, name, true),
            (Role::OutValue, Type::Pointer { pointee, is_const: false })
                if !pointee.is_void() && !matches!(self.trace_kind(pointee), TraceKind::Record | TraceKind::FnPtr) =>
            {
                let ok = if status { "__r.0 == 0 && " } else { "" };
                let out = self.trace_value(pointee, &format!("(*{name})"), false);
                let slot = self.trace_value(&p.ty, name, false);
                format!("if {ok}!{name}.is_null() {{ {out} }} else {{ {slot} }}")
            }
            _ => self.trace_value(&p.ty, name, false),
        }
    }

    /// A `trace::Value` expression for `expr` of type `ty`; `cstr` marks a C string input.
    pub fn trace_value(&self, ty: &Type, expr: &str, cstr: bool) -> String {
        if cstr {
            return format!("crate::trace::Value::Str(crate::util::opt_cstr({expr} as *const c_char))");
        }
        let handle_field = |e: &str| -> String {
            match self.lib.resolve(ty) {
                Resolved::ScalarHandle(..) | Resolved::OpaqueHandle(_) => format!("{e}.0"),
                _ => e.to_string(),
            }
        };
        match self.trace_kind(ty) {
            TraceKind::Signed => format!("crate::trace::Value::I64({} as i64)", handle_field(expr)),
            TraceKind::Unsigned => format!("crate::trace::Value::U64({} as u64)", handle_field(expr)),
            TraceKind::Size => format!("crate::trace::Value::Size({expr} as u64)"),
            TraceKind::Float => format!("crate::trace::Value::F64({expr} as f64)"),
            TraceKind::Bool => format!("crate::trace::Value::Bool({expr})"),
            TraceKind::Hex => format!("crate::trace::Value::Hex({} as u64)", handle_field(expr)),
            TraceKind::PtrHandle => format!("crate::trace::Value::Hex({expr}.0 as usize as u64)"),
            TraceKind::Enum => format!("crate::trace::Value::Enum {{ name: {expr}.name(), value: {expr}.0 as i64 }}"),
            TraceKind::Ptr => format!("crate::trace::Value::Ptr({expr} as *const c_void)"),
            TraceKind::FnPtr => format!(
                "crate::trace::Value::Ptr({expr}.map_or(core::ptr::null(), |f| f as usize as *const c_void))"
            ),
            TraceKind::Record => format!("crate::trace::Value::Ptr(core::ptr::addr_of!({expr}).cast())"),
        }
    }

    /// The struct that defines a handle type (follows aliases): used for constructors in consts;
    /// true for a pointer handle.
    pub fn handle_struct<'t>(&'t self, ty: &'t Type) -> Option<(&'t Typedef, bool)> {
        match self.lib.resolve(ty) {
            Resolved::OpaqueHandle(t) => Some((t, true)),
            Resolved::ScalarHandle(t, _) => Some((t, false)),
            _ => None,
        }
    }

    /// A pointer's pointee is a C string (`char`).
    pub fn is_char(ty: &Type) -> bool {
        matches!(ty, Type::Prim { prim: Prim::Char | Prim::SChar | Prim::UChar })
    }
}

/// Literal of an enum value in the enum's repr (`-1` stays signed in an `int` enum; unsigned reprs
/// wrap to their width).
pub(super) fn repr_literal(repr: Prim, value: i64) -> String {
    if repr.is_signed() {
        value.to_string()
    } else {
        match repr.size() {
            1 => (value as u8).to_string(),
            2 => (value as u16).to_string(),
            4 => (value as u32).to_string(),
            _ => (value as u64).to_string(),
        }
    }
}
