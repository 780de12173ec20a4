//! C types -> Rust spellings, layout facts and trace conversions, resolved against one library.

use crate::ir::{Enum, Library, Prim, Record, Type, Typedef, TypedefKind};

/// What a `Type::Named` resolves to.
#[derive(Clone, Copy)]
pub(super) enum Item<'a> {
    Enum(&'a Enum),
    Record(&'a Record),
    Typedef(&'a Typedef),
}

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

/// Rust keywords that need `r#` as identifiers (strict + reserved, 2021 edition).
const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl",
    "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "static", "struct", "trait",
    "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box",
    "do", "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

/// An identifier usable in Rust (`type` -> `r#type`; `self`/`Self`/`super`/`crate` -> `_self`...).
pub(super) fn ident(name: &str) -> String {
    if name.is_empty() {
        return "_".into();
    }
    if matches!(name, "self" | "Self" | "super" | "crate") {
        return format!("{name}_");
    }
    if KEYWORDS.contains(&name) {
        format!("r#{name}")
    } else {
        name.to_string()
    }
}

/// `r#type` -> `type`: the base for derived local names (`type_ptrs`).
pub(super) fn bare(ident: &str) -> &str {
    ident.strip_prefix("r#").unwrap_or(ident)
}

impl<'a> Ctx<'a> {
    pub fn new(lib: &'a Library) -> Self {
        Ctx { lib }
    }

    pub fn item(&self, name: &str) -> Option<Item<'a>> {
        if let Some(t) = self.lib.typedef(name) {
            return Some(Item::Typedef(t));
        }
        if let Some(e) = self.lib.enum_named(name) {
            return Some(Item::Enum(e));
        }
        self.lib.record(name).map(Item::Record)
    }

    /// Follows plain aliases to the item that defines the type.
    pub fn resolve(&self, ty: &Type) -> Option<Item<'a>> {
        let mut cur = ty.clone();
        for _ in 0..32 {
            let Type::Named { name } = &cur else { return None };
            let item = self.item(name)?;
            match item {
                Item::Typedef(t) if matches!(t.kind, TypedefKind::Alias | TypedefKind::EnumAlias { .. } | TypedefKind::RecordAlias { .. }) => {
                    cur = t.target.clone();
                }
                other => return Some(other),
            }
        }
        None
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
        match ty {
            Type::Prim { prim } => prim.size().max(1),
            Type::Pointer { .. } | Type::FnPtr { .. } => 8,
            Type::Array { elem, .. } => self.align(elem),
            Type::Named { name } => match self.item(name) {
                Some(Item::Record(r)) => r.align,
                Some(Item::Enum(e)) => e.repr.size(),
                Some(Item::Typedef(t)) => match &t.kind {
                    TypedefKind::OpaqueHandle { .. } | TypedefKind::Callback { .. } => 8,
                    TypedefKind::ScalarHandle { prim } => prim.size(),
                    _ => self.align(&t.target),
                },
                None => 0,
            },
        }
    }

    /// How the tracer shows a value of `ty`.
    pub fn trace_kind(&self, ty: &Type) -> TraceKind {
        match ty {
            Type::Prim { prim } => match prim {
                Prim::Bool => TraceKind::Bool,
                Prim::Float | Prim::Double => TraceKind::Float,
                Prim::SizeT => TraceKind::Size,
                p if p.is_signed() => TraceKind::Signed,
                _ => TraceKind::Unsigned,
            },
            Type::Pointer { .. } | Type::Array { .. } => TraceKind::Ptr,
            Type::FnPtr { .. } => TraceKind::FnPtr,
            Type::Named { .. } => match self.resolve(ty) {
                Some(Item::Enum(_)) => TraceKind::Enum,
                Some(Item::Record(_)) => TraceKind::Record,
                Some(Item::Typedef(t)) => match &t.kind {
                    TypedefKind::OpaqueHandle { .. } => TraceKind::PtrHandle,
                    TypedefKind::ScalarHandle { prim } if prim.is_signed() => TraceKind::Signed,
                    TypedefKind::ScalarHandle { .. } => TraceKind::Hex,
                    TypedefKind::Callback { .. } => TraceKind::FnPtr,
                    _ => self.trace_kind(&t.target),
                },
                // An alias chain that ends in a primitive (`cuuint64_t`): trace as that primitive.
                None => match ty {
                    Type::Named { name } => match self.item(name) {
                        Some(Item::Typedef(t)) => self.trace_kind(&t.target),
                        _ => TraceKind::Ptr,
                    },
                    _ => TraceKind::Ptr,
                },
            },
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
            match self.resolve(ty) {
                Some(Item::Typedef(t)) if matches!(t.kind, TypedefKind::ScalarHandle { .. } | TypedefKind::OpaqueHandle { .. }) => {
                    format!("{e}.0")
                }
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

    /// The struct that defines a handle type (follows aliases): used for constructors in consts.
    pub fn handle_struct(&self, ty: &Type) -> Option<(&'a Typedef, bool)> {
        match self.resolve(ty)? {
            Item::Typedef(t) => match t.kind {
                TypedefKind::OpaqueHandle { .. } => Some((t, true)),
                TypedefKind::ScalarHandle { .. } => Some((t, false)),
                _ => None,
            },
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
