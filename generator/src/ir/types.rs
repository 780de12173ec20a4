//! C types as the IR sees them.

use serde::{Deserialize, Serialize};

/// A C type. Typedefs, enums and records are referred to by name; the library resolves them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "t")]
pub enum Type {
    Prim {
        prim: Prim,
    },
    /// A typedef, enum or record of the same library, by public name.
    Named {
        name: String,
    },
    /// `is_const` qualifies the pointee: `const char*` is `Pointer { Char, is_const: true }`.
    Pointer {
        pointee: Box<Type>,
        is_const: bool,
    },
    Array {
        elem: Box<Type>,
        len: u64,
    },
    /// An unnamed function pointer type (named ones are typedefs).
    FnPtr {
        ret: Box<Type>,
        params: Vec<Type>,
    },
}

impl Type {
    pub fn prim(prim: Prim) -> Type {
        Type::Prim { prim }
    }
    pub fn named(name: impl Into<String>) -> Type {
        Type::Named { name: name.into() }
    }
    pub fn ptr(pointee: Type, is_const: bool) -> Type {
        Type::Pointer { pointee: Box::new(pointee), is_const }
    }
    pub fn is_void(&self) -> bool {
        matches!(self, Type::Prim { prim: Prim::Void })
    }
    /// A character type: the pointee of a C string.
    pub fn is_char(&self) -> bool {
        matches!(self, Type::Prim { prim: Prim::Char | Prim::SChar | Prim::UChar })
    }
    /// A byte type: the pointee of a byte buffer.
    pub fn is_byte(&self) -> bool {
        self.is_char() || matches!(self, Type::Prim { prim: Prim::U8 | Prim::I8 })
    }
    /// The pointee of a pointer type.
    pub fn pointee(&self) -> Option<(&Type, bool)> {
        match self {
            Type::Pointer { pointee, is_const } => Some((pointee, *is_const)),
            _ => None,
        }
    }
    /// The type with every `const` dropped: two typedefs equal so (`cudaArray_t` and
    /// `cudaArray_const_t`) name one C type up to `const`, which C converts implicitly.
    pub fn without_const(&self) -> Type {
        match self {
            Type::Pointer { pointee, .. } => Type::ptr(pointee.without_const(), false),
            Type::Array { elem, len } => Type::Array { elem: Box::new(elem.without_const()), len: *len },
            Type::FnPtr { ret, params } => {
                Type::FnPtr { ret: Box::new(ret.without_const()), params: params.iter().map(Type::without_const).collect() }
            }
            t => t.clone(),
        }
    }
    /// The C spelling of the type with an optional declarator name (`const char *name`).
    pub fn c_decl(&self, name: &str) -> String {
        self.c_decl_with(name, &|n| n.to_string())
    }
    /// [`Type::c_decl`] with each named type spelled by `named` (`struct cudaDeviceProp` where a
    /// header gives a record no typedef).
    pub fn c_decl_with(&self, name: &str, named: &dyn Fn(&str) -> String) -> String {
        match self {
            Type::Prim { prim } => join(prim.c_name(), name),
            Type::Named { name: n } => join(&named(n), name),
            Type::Pointer { pointee, is_const } => {
                let inner = format!("*{name}");
                match &**pointee {
                    Type::Array { .. } | Type::FnPtr { .. } => pointee.c_decl_with(&format!("({inner})"), named),
                    // `is_const` qualifies the pointee; a pointer pointee takes it after its `*`:
                    // `const char *const *name`, never `const const char **name`.
                    p @ Type::Pointer { .. } if *is_const => p.c_decl_with(&format!("const {inner}"), named),
                    p if *is_const => format!("const {}", p.c_decl_with(&inner, named)),
                    p => p.c_decl_with(&inner, named),
                }
            }
            Type::Array { elem, len } => elem.c_decl_with(&format!("{name}[{len}]"), named),
            Type::FnPtr { ret, params } => {
                let ps: Vec<String> = params.iter().map(|p| p.c_decl_with("", named)).collect();
                let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
                ret.c_decl_with(&format!("(*{name})({ps})"), named)
            }
        }
    }
}

fn join(ty: &str, name: &str) -> String {
    if name.is_empty() {
        ty.to_string()
    } else {
        format!("{ty} {name}")
    }
}

/// Built-in and `<stdint.h>`/`<stddef.h>` types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Prim {
    Void,
    Bool,
    Char,
    SChar,
    UChar,
    Short,
    UShort,
    Int,
    UInt,
    Long,
    ULong,
    LongLong,
    ULongLong,
    Float,
    Double,
    SizeT,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    UIntPtr,
    IntPtr,
}

impl Prim {
    pub const ALL: [Prim; 26] = [
        Prim::Void,
        Prim::Bool,
        Prim::Char,
        Prim::SChar,
        Prim::UChar,
        Prim::Short,
        Prim::UShort,
        Prim::Int,
        Prim::UInt,
        Prim::Long,
        Prim::ULong,
        Prim::LongLong,
        Prim::ULongLong,
        Prim::Float,
        Prim::Double,
        Prim::SizeT,
        Prim::I8,
        Prim::I16,
        Prim::I32,
        Prim::I64,
        Prim::U8,
        Prim::U16,
        Prim::U32,
        Prim::U64,
        Prim::UIntPtr,
        Prim::IntPtr,
    ];

    /// C spelling.
    pub fn c_name(self) -> &'static str {
        match self {
            Prim::Void => "void",
            Prim::Bool => "_Bool",
            Prim::Char => "char",
            Prim::SChar => "signed char",
            Prim::UChar => "unsigned char",
            Prim::Short => "short",
            Prim::UShort => "unsigned short",
            Prim::Int => "int",
            Prim::UInt => "unsigned int",
            Prim::Long => "long",
            Prim::ULong => "unsigned long",
            Prim::LongLong => "long long",
            Prim::ULongLong => "unsigned long long",
            Prim::Float => "float",
            Prim::Double => "double",
            Prim::SizeT => "size_t",
            Prim::I8 => "int8_t",
            Prim::I16 => "int16_t",
            Prim::I32 => "int32_t",
            Prim::I64 => "int64_t",
            Prim::U8 => "uint8_t",
            Prim::U16 => "uint16_t",
            Prim::U32 => "uint32_t",
            Prim::U64 => "uint64_t",
            Prim::UIntPtr => "uintptr_t",
            Prim::IntPtr => "intptr_t",
        }
    }

    /// Rust spelling (`core::ffi` names for C's platform types).
    pub fn rust_name(self) -> &'static str {
        match self {
            Prim::Void => "::core::ffi::c_void",
            Prim::Bool => "bool",
            Prim::Char => "::core::ffi::c_char",
            Prim::SChar => "::core::ffi::c_schar",
            Prim::UChar => "::core::ffi::c_uchar",
            Prim::Short => "::core::ffi::c_short",
            Prim::UShort => "::core::ffi::c_ushort",
            Prim::Int => "::core::ffi::c_int",
            Prim::UInt => "::core::ffi::c_uint",
            Prim::Long => "::core::ffi::c_long",
            Prim::ULong => "::core::ffi::c_ulong",
            Prim::LongLong => "::core::ffi::c_longlong",
            Prim::ULongLong => "::core::ffi::c_ulonglong",
            Prim::Float => "f32",
            Prim::Double => "f64",
            Prim::SizeT => "usize",
            Prim::I8 => "i8",
            Prim::I16 => "i16",
            Prim::I32 => "i32",
            Prim::I64 => "i64",
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::UIntPtr => "usize",
            Prim::IntPtr => "isize",
        }
    }

    /// Size in bytes on the LP64 targets the generator supports.
    pub fn size(self) -> u64 {
        match self {
            Prim::Void => 0,
            Prim::Bool | Prim::Char | Prim::SChar | Prim::UChar | Prim::I8 | Prim::U8 => 1,
            Prim::Short | Prim::UShort | Prim::I16 | Prim::U16 => 2,
            Prim::Int | Prim::UInt | Prim::Float | Prim::I32 | Prim::U32 => 4,
            _ => 8,
        }
    }

    pub fn is_integer(self) -> bool {
        !matches!(self, Prim::Void | Prim::Float | Prim::Double)
    }

    pub fn is_signed(self) -> bool {
        matches!(
            self,
            Prim::Char
                | Prim::SChar
                | Prim::Short
                | Prim::Int
                | Prim::Long
                | Prim::LongLong
                | Prim::I8
                | Prim::I16
                | Prim::I32
                | Prim::I64
                | Prim::IntPtr
                | Prim::Float
                | Prim::Double
        )
    }

    /// The `<stdint.h>`/`<stddef.h>` typedef names the generator treats as primitives.
    pub fn from_std_typedef(name: &str) -> Option<Prim> {
        Some(match name {
            "size_t" => Prim::SizeT,
            "int8_t" => Prim::I8,
            "int16_t" => Prim::I16,
            "int32_t" => Prim::I32,
            "int64_t" => Prim::I64,
            "uint8_t" => Prim::U8,
            "uint16_t" => Prim::U16,
            "uint32_t" => Prim::U32,
            "uint64_t" => Prim::U64,
            "uintptr_t" => Prim::UIntPtr,
            "intptr_t" => Prim::IntPtr,
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_decl_spellings() {
        let cchar = Type::ptr(Type::prim(Prim::Char), true);
        assert_eq!(cchar.c_decl("name"), "const char *name");
        assert_eq!(Type::ptr(cchar.clone(), true).c_decl("headers"), "const char *const *headers");
        assert_eq!(Type::ptr(cchar.clone(), false).c_decl("p"), "const char **p");
        assert_eq!(Type::ptr(Type::ptr(Type::prim(Prim::Void), false), false).c_decl(""), "void **");
        assert_eq!(Type::ptr(Type::named("CUstream"), true).c_decl("s"), "const CUstream *s");
        let arr = Type::Array { elem: Box::new(Type::prim(Prim::Char)), len: 16 };
        assert_eq!(arr.c_decl("bytes"), "char bytes[16]");
        let f = Type::FnPtr { ret: Box::new(Type::prim(Prim::Void)), params: vec![Type::ptr(Type::prim(Prim::Void), false)] };
        assert_eq!(f.c_decl("fn"), "void (*fn)(void *)");
    }
}
