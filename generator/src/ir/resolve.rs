//! Following typedef chains to what a type finally is.

use super::{Enum, Library, Prim, Record, Type, Typedef, TypedefKind};

/// What a type is once plain aliases are followed.
#[derive(Clone, Copy, Debug)]
pub enum Resolved<'a> {
    Prim(Prim),
    Enum(&'a Enum),
    Record(&'a Record),
    /// Pointer to an incomplete struct (`CUcontext`).
    OpaqueHandle(&'a Typedef),
    /// Integer handle (`CUdevice_v1`, `CUdeviceptr_v2`).
    ScalarHandle(&'a Typedef, Prim),
    Callback(&'a Typedef),
    Pointer {
        pointee: &'a Type,
        is_const: bool,
    },
    Array {
        elem: &'a Type,
        len: u64,
    },
    FnPtr,
    /// A name the library does not define (reported by validation).
    Unknown,
}

impl Library {
    /// Resolves `ty` through `Alias`, `EnumAlias` and `RecordAlias` typedefs.
    pub fn resolve<'a>(&'a self, ty: &'a Type) -> Resolved<'a> {
        let mut ty = ty;
        for _ in 0..32 {
            match ty {
                Type::Prim { prim } => return Resolved::Prim(*prim),
                Type::Pointer { pointee, is_const } => return Resolved::Pointer { pointee, is_const: *is_const },
                Type::Array { elem, len } => return Resolved::Array { elem, len: *len },
                Type::FnPtr { .. } => return Resolved::FnPtr,
                Type::Named { name } => {
                    if let Some(e) = self.enum_named(name) {
                        return Resolved::Enum(e);
                    }
                    if let Some(t) = self.typedef(name) {
                        match &t.kind {
                            TypedefKind::OpaqueHandle { .. } => return Resolved::OpaqueHandle(t),
                            TypedefKind::ScalarHandle { prim } => return Resolved::ScalarHandle(t, *prim),
                            TypedefKind::Callback { .. } => return Resolved::Callback(t),
                            _ => {
                                ty = &t.target;
                                continue;
                            }
                        }
                    }
                    if let Some(r) = self.record(name) {
                        return Resolved::Record(r);
                    }
                    return Resolved::Unknown;
                }
            }
        }
        Resolved::Unknown
    }

    /// True when `ty` is the library's status enum (`CUresult`, `nvrtcResult`).
    /// Alignment in bytes of a value of `ty` (0 when unknown).
    pub fn align_of(&self, ty: &Type) -> u64 {
        match self.resolve(ty) {
            Resolved::Prim(p) => p.size().max(1),
            Resolved::Enum(e) => e.repr.size(),
            Resolved::Record(r) => r.align,
            Resolved::OpaqueHandle(_) | Resolved::Callback(_) | Resolved::Pointer { .. } | Resolved::FnPtr => 8,
            Resolved::ScalarHandle(_, p) => p.size(),
            Resolved::Array { elem, .. } => self.align_of(elem),
            Resolved::Unknown => 0,
        }
    }
    /// The alignment a complete record asks for beyond its fields' (`__builtin_align__(16)` on
    /// `float4`), else `None`.
    pub fn over_alignment(&self, r: &super::Record) -> Option<u64> {
        let natural = r.fields.iter().map(|f| self.align_of(&f.ty)).max().unwrap_or(1).max(1);
        (r.complete && r.align > natural).then_some(r.align)
    }
    pub fn is_status(&self, ty: &Type) -> bool {
        match (self.resolve(ty), &self.status_enum) {
            (Resolved::Enum(e), Some(s)) => &e.name == s,
            _ => false,
        }
    }
}
