//! C types -> Rust spellings, layout facts and trace conversions, resolved against one library.

use crate::ir::{Library, ParamKind, Pointee, Prim, Resolved, TraceUse, Type, Typedef};
use crate::render::rust_type::{self, Prims};

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
    Prims::Short.name(p)
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
        rust_type::spell(ty, Prims::Short)
    }

    /// ` -> T` for a function return type (empty for `void`).
    pub fn ret_suffix(&self, ret: &Type) -> String {
        rust_type::ret_suffix(ret, Prims::Short)
    }

    /// Alignment in bytes of a C type on LP64 (0 when unknown).
    pub fn align(&self, ty: &Type) -> u64 {
        self.lib.align_of(ty)
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

    /// How the tracer records parameter `p` (Rust name `name`, position `index`): its
    /// `trace::Arg` (a constant of the function's static `trace::Desc`) and the expression of
    /// its word, evaluated after the call; an enum's decoder joins `enums` (the `Desc`'s list). A `const char *` the IR calls an input string is
    /// copied as a string; a single output value (`CUdeviceptr *dptr`) is recorded as what the
    /// callee wrote (when the call succeeded: `status` functions return `__r`; bit `index` of
    /// the mask `__w` says so), not as the slot's address; anything else as its own value.
    /// `p.trace` marks an argument the tracer reads beyond its value (a module image, a launch's
    /// arguments) or whose call launches or frees handles.
    pub fn trace_param(
        &self,
        p: &crate::ir::Param,
        name: &str,
        index: usize,
        status: bool,
        enums: &mut Vec<String>,
    ) -> (String, String) {
        let (arg, word) = match &p.kind {
            ParamKind::CstrIn { is_const: true, .. } => {
                let (kind, word) = self.trace_word(&p.ty, name, true, enums);
                (format!("crate::trace::Arg::new({kind})"), word)
            }
            ParamKind::OutValue { pointee: Pointee { ty: pointee, is_const: false }, untyped }
                if index < 64 && !matches!(self.trace_kind(pointee), TraceKind::Record | TraceKind::FnPtr) =>
            {
                let ok = if status { "__r.0 == 0 && " } else { "" };
                let read = if *untyped { format!("(*{name}.cast::<{}>())", self.rust(pointee)) } else { format!("(*{name})") };
                let (kind, out) = self.trace_word(pointee, &read, false, enums);
                let (_, slot) = self.trace_word(&p.ty, name, false, enums);
                (
                    format!("crate::trace::Arg::out({kind})"),
                    format!("if {ok}!{name}.is_null() {{ __w |= 1 << {index}; {out} }} else {{ {slot} }}"),
                )
            }
            _ => {
                let (kind, word) = self.trace_word(&p.ty, name, false, enums);
                (format!("crate::trace::Arg::new({kind})"), word)
            }
        };
        let kind = |k: &str| format!("crate::trace::Arg::new(crate::trace::Kind::{k})");
        let arg = match p.trace {
            Some(TraceUse::Image) => kind("Image"),
            Some(TraceUse::KernelParams) => kind("KernelParams"),
            Some(TraceUse::LaunchExtra) => kind("LaunchExtra"),
            Some(TraceUse::Launched) => format!("{arg}.launched()"),
            Some(TraceUse::Frees) => format!("{arg}.frees()"),
            None => arg,
        };
        (arg, word)
    }

    /// How the tracer records `expr` of type `ty` (`cstr` marks a C string input): the
    /// `trace::Kind` that shows it and the expression of its `u64` word. An enum's kind names its
    /// decoder by its index in `enums` (added there once).
    pub fn trace_word(&self, ty: &Type, expr: &str, cstr: bool, enums: &mut Vec<String>) -> (String, String) {
        let kind = |k: &str| format!("crate::trace::Kind::{k}");
        if cstr {
            return (kind("Str"), format!("{expr} as usize as u64"));
        }
        let handle_field = |e: &str| -> String {
            match self.lib.resolve(ty) {
                Resolved::ScalarHandle(..) | Resolved::OpaqueHandle(_) => format!("{e}.0"),
                _ => e.to_string(),
            }
        };
        let class = match self.lib.resolve(ty) {
            Resolved::ScalarHandle(t, _) | Resolved::OpaqueHandle(t) => self.lib.trace.handles.get(&t.name),
            _ => None,
        };
        if let Some(class) = class {
            let word = match self.trace_kind(ty) {
                TraceKind::PtrHandle => format!("{expr}.0 as usize as u64"),
                _ => format!("{} as u64", handle_field(expr)),
            };
            return (kind(&format!("Handle(crate::trace::Class::{class:?})")), word);
        }
        match self.trace_kind(ty) {
            TraceKind::Signed => (kind("I64"), format!("{} as i64 as u64", handle_field(expr))),
            TraceKind::Unsigned => (kind("U64"), format!("{} as u64", handle_field(expr))),
            TraceKind::Size => (kind("Size"), format!("{expr} as u64")),
            TraceKind::Float => (kind("F64"), format!("({expr} as f64).to_bits()")),
            TraceKind::Bool => (kind("Bool"), format!("{expr} as u64")),
            TraceKind::Hex => (kind("Hex"), format!("{} as u64", handle_field(expr))),
            TraceKind::PtrHandle => (kind("Hex"), format!("{expr}.0 as usize as u64")),
            TraceKind::Enum => {
                let decoder = format!("{}::trace_name", self.rust(ty));
                let i = enums.iter().position(|e| *e == decoder).unwrap_or_else(|| {
                    enums.push(decoder);
                    enums.len() - 1
                });
                (kind(&format!("Enum({i})")), format!("{expr}.0 as i64 as u64"))
            }
            TraceKind::Ptr => (kind("Ptr"), format!("{expr} as usize as u64")),
            TraceKind::FnPtr => (kind("Ptr"), format!("{expr}.map_or(0, |f| f as usize as u64)")),
            TraceKind::Record => (kind("Ptr"), format!("core::ptr::addr_of!({expr}) as usize as u64")),
        }
    }

    /// The struct that defines a handle type (follows aliases): used for constructors in consts;
    /// true for a pointer handle.
    /// The Rust path of handle typedef `name`'s struct: another library's where it is that
    /// library's type (`crate::driver::CUstream` for `cudaStream_t`), else its own name.
    pub fn handle_path(&self, name: &str) -> String {
        match self.lib.shared_handle(name) {
            Some(s) => format!("crate::{}::{}", s.library.module(), s.target),
            None => name.to_string(),
        }
    }
    pub fn handle_struct<'t>(&'t self, ty: &'t Type) -> Option<(&'t Typedef, bool)> {
        match self.lib.resolve(ty) {
            Resolved::OpaqueHandle(t) => Some((t, true)),
            Resolved::ScalarHandle(t, _) => Some((t, false)),
            _ => None,
        }
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
