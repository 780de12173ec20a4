//! libclang types -> IR types.

use super::names::PublicNames;
use crate::clang::{Ty, TyKind};
use crate::diag::{Error, Result};
use crate::ir::{Location, Prim, Type};

/// Converts a type as written (typedef names kept) into an IR type.
pub fn convert(ty: &Ty<'_>, names: &PublicNames, at: &Location) -> Result<Type> {
    let prim = |p| Ok(Type::prim(p));
    match ty.kind() {
        TyKind::Void => prim(Prim::Void),
        TyKind::Bool => prim(Prim::Bool),
        TyKind::CharS | TyKind::CharU => prim(Prim::Char),
        TyKind::SChar => prim(Prim::SChar),
        TyKind::UChar => prim(Prim::UChar),
        TyKind::Short => prim(Prim::Short),
        TyKind::UShort => prim(Prim::UShort),
        TyKind::Int => prim(Prim::Int),
        TyKind::UInt => prim(Prim::UInt),
        TyKind::Long => prim(Prim::Long),
        TyKind::ULong => prim(Prim::ULong),
        TyKind::LongLong => prim(Prim::LongLong),
        TyKind::ULongLong => prim(Prim::ULongLong),
        TyKind::Float => prim(Prim::Float),
        TyKind::Double => prim(Prim::Double),
        TyKind::Typedef => {
            let name = ty.typedef_name();
            let name = if name.is_empty() { ty.spelling().trim_start_matches("const ").to_string() } else { name };
            match Prim::from_std_typedef(&name) {
                Some(p) => prim(p),
                None => Ok(Type::named(name)),
            }
        }
        TyKind::Elaborated => convert(&ty.named(), names, at),
        TyKind::Record | TyKind::Enum => {
            let decl = ty.declaration();
            names
                .of(&decl)
                .map(Type::named)
                .ok_or_else(|| Error::at(at.clone(), format!("unnamed type `{}` used here", ty.spelling())))
        }
        TyKind::Pointer => {
            let pointee = ty.pointee();
            // A pointer to a function is the IR's `FnPtr` itself; so is a pointer to a typedef of
            // a function type (`VdpGetProcAddress *`), whose IR typedef is already the pointer.
            let written = if pointee.kind() == TyKind::Elaborated { pointee.named() } else { pointee };
            if matches!(pointee.kind(), TyKind::FunctionProto | TyKind::FunctionNoProto)
                || (written.kind() == TyKind::Typedef
                    && matches!(written.canonical().kind(), TyKind::FunctionProto | TyKind::FunctionNoProto))
            {
                return convert(&pointee, names, at);
            }
            Ok(Type::ptr(convert(&pointee, names, at)?, pointee.is_const()))
        }
        TyKind::ConstantArray => {
            Ok(Type::Array { elem: Box::new(convert(&ty.element(), names, at)?), len: ty.array_len().unwrap_or(0) })
        }
        // `T x[]` as a parameter is a pointer.
        TyKind::IncompleteArray => {
            let elem = ty.element();
            Ok(Type::ptr(convert(&elem, names, at)?, elem.is_const()))
        }
        TyKind::FunctionProto | TyKind::FunctionNoProto => Ok(Type::FnPtr {
            ret: Box::new(convert(&ty.result(), names, at)?),
            params: ty.args().iter().map(|a| convert(a, names, at)).collect::<Result<_>>()?,
        }),
        TyKind::Other(k) => Err(Error::at(at.clone(), format!("unsupported C type `{}` (kind {k})", ty.spelling()))),
    }
}
