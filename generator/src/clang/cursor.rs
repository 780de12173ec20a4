//! Cursors, types and tokens.
#![allow(non_upper_case_globals)]

use super::{cx_string, location_of, TranslationUnit};
use crate::ir::Location;
use clang_sys::*;
use std::os::raw::c_void;

/// The cursor kinds the parser cares about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CursorKind {
    Function,
    Param,
    Typedef,
    Struct,
    Union,
    Enum,
    EnumConstant,
    Field,
    MacroDefinition,
    MacroExpansion,
    InclusionDirective,
    Other(i32),
}

#[derive(Clone, Copy)]
pub struct Cursor<'tu> {
    raw: CXCursor,
    tu: &'tu TranslationUnit,
}

impl<'tu> Cursor<'tu> {
    pub(super) fn new(raw: CXCursor, tu: &'tu TranslationUnit) -> Self {
        Cursor { raw, tu }
    }

    pub fn kind(&self) -> CursorKind {
        match unsafe { clang_getCursorKind(self.raw) } {
            CXCursor_FunctionDecl => CursorKind::Function,
            CXCursor_ParmDecl => CursorKind::Param,
            CXCursor_TypedefDecl => CursorKind::Typedef,
            CXCursor_StructDecl => CursorKind::Struct,
            CXCursor_UnionDecl => CursorKind::Union,
            CXCursor_EnumDecl => CursorKind::Enum,
            CXCursor_EnumConstantDecl => CursorKind::EnumConstant,
            CXCursor_FieldDecl => CursorKind::Field,
            CXCursor_MacroDefinition => CursorKind::MacroDefinition,
            CXCursor_MacroExpansion => CursorKind::MacroExpansion,
            CXCursor_InclusionDirective => CursorKind::InclusionDirective,
            k => CursorKind::Other(k),
        }
    }

    pub fn spelling(&self) -> String {
        unsafe { cx_string(clang_getCursorSpelling(self.raw)) }
    }

    /// Unified symbol resolution id: stable identity of a declaration within the parse.
    pub fn usr(&self) -> String {
        unsafe { cx_string(clang_getCursorUSR(self.raw)) }
    }

    pub fn location(&self) -> Location {
        location_of(unsafe { clang_getCursorLocation(self.raw) })
    }

    pub fn ty(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getCursorType(self.raw) }, self.tu)
    }

    /// Direct children, in source order.
    pub fn children(&self) -> Vec<Cursor<'tu>> {
        extern "C" fn visit(c: CXCursor, _parent: CXCursor, data: CXClientData) -> CXChildVisitResult {
            let out = unsafe { &mut *(data as *mut Vec<CXCursor>) };
            out.push(c);
            CXChildVisit_Continue
        }
        let mut raw: Vec<CXCursor> = Vec::new();
        unsafe { clang_visitChildren(self.raw, visit, &mut raw as *mut Vec<CXCursor> as *mut c_void) };
        raw.into_iter().map(|c| Cursor::new(c, self.tu)).collect()
    }

    pub fn is_definition(&self) -> bool {
        unsafe { clang_isCursorDefinition(self.raw) != 0 }
    }

    /// An unnamed struct/union/enum (`struct { ... } x;` or a C11 anonymous member).
    pub fn is_anonymous(&self) -> bool {
        unsafe { clang_Cursor_isAnonymous(self.raw) != 0 }
    }

    /// A C11 anonymous struct/union member (no field name, members reached through the parent).
    pub fn is_anonymous_record_decl(&self) -> bool {
        unsafe { clang_Cursor_isAnonymousRecordDecl(self.raw) != 0 }
    }

    pub fn typedef_underlying(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getTypedefDeclUnderlyingType(self.raw) }, self.tu)
    }

    pub fn enum_value(&self) -> i64 {
        unsafe { clang_getEnumConstantDeclValue(self.raw) }
    }

    pub fn enum_unsigned_value(&self) -> u64 {
        unsafe { clang_getEnumConstantDeclUnsignedValue(self.raw) }
    }

    pub fn enum_integer_type(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getEnumDeclIntegerType(self.raw) }, self.tu)
    }

    /// Bit offset of a field in its record.
    pub fn field_offset_bits(&self) -> Option<u64> {
        let off = unsafe { clang_Cursor_getOffsetOfField(self.raw) };
        (off >= 0).then_some(off as u64)
    }

    pub fn bit_width(&self) -> Option<u32> {
        unsafe { (clang_Cursor_isBitField(self.raw) != 0).then(|| clang_getFieldDeclBitWidth(self.raw) as u32) }
    }

    /// The raw doc comment attached to the declaration.
    pub fn raw_comment(&self) -> Option<String> {
        let s = unsafe { cx_string(clang_Cursor_getRawCommentText(self.raw)) };
        (!s.is_empty()).then_some(s)
    }

    /// Deprecated through `__attribute__((deprecated))`.
    pub fn is_deprecated(&self) -> bool {
        unsafe { clang_getCursorAvailability(self.raw) == CXAvailability_Deprecated }
    }

    pub fn is_function_like_macro(&self) -> bool {
        unsafe { clang_Cursor_isMacroFunctionLike(self.raw) != 0 }
    }

    /// Parameters of a function declaration.
    pub fn arguments(&self) -> Vec<Cursor<'tu>> {
        let n = unsafe { clang_Cursor_getNumArguments(self.raw) };
        (0..n.max(0) as u32).map(|i| Cursor::new(unsafe { clang_Cursor_getArgument(self.raw, i) }, self.tu)).collect()
    }

    pub fn result_type(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getCursorResultType(self.raw) }, self.tu)
    }

    /// The tokens of the cursor's extent (for macros: name then replacement list).
    pub fn tokens(&self) -> Vec<Token> {
        unsafe {
            let extent = clang_getCursorExtent(self.raw);
            let mut toks: *mut CXToken = std::ptr::null_mut();
            let mut n: u32 = 0;
            clang_tokenize(self.tu.raw(), extent, &mut toks, &mut n);
            let mut out = Vec::with_capacity(n as usize);
            for i in 0..n as usize {
                let t = *toks.add(i);
                let kind = match clang_getTokenKind(t) {
                    CXToken_Punctuation => TokenKind::Punct,
                    CXToken_Keyword => TokenKind::Keyword,
                    CXToken_Identifier => TokenKind::Ident,
                    CXToken_Literal => TokenKind::Literal,
                    _ => TokenKind::Comment,
                };
                out.push(Token { kind, text: cx_string(clang_getTokenSpelling(self.tu.raw(), t)) });
            }
            if !toks.is_null() {
                clang_disposeTokens(self.tu.raw(), toks, n);
            }
            out
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    Punct,
    Keyword,
    Ident,
    Literal,
    Comment,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub text: String,
}

/// The type kinds the parser distinguishes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TyKind {
    Void,
    Bool,
    CharS,
    CharU,
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
    Pointer,
    Record,
    Enum,
    Typedef,
    Elaborated,
    ConstantArray,
    IncompleteArray,
    FunctionProto,
    FunctionNoProto,
    Other(i32),
}

#[derive(Clone, Copy)]
pub struct Ty<'tu> {
    raw: CXType,
    tu: &'tu TranslationUnit,
}

impl<'tu> Ty<'tu> {
    fn new(raw: CXType, tu: &'tu TranslationUnit) -> Self {
        Ty { raw, tu }
    }

    pub fn kind(&self) -> TyKind {
        match self.raw.kind {
            CXType_Void => TyKind::Void,
            CXType_Bool => TyKind::Bool,
            CXType_Char_S => TyKind::CharS,
            CXType_Char_U => TyKind::CharU,
            CXType_SChar => TyKind::SChar,
            CXType_UChar => TyKind::UChar,
            CXType_Short => TyKind::Short,
            CXType_UShort => TyKind::UShort,
            CXType_Int => TyKind::Int,
            CXType_UInt => TyKind::UInt,
            CXType_Long => TyKind::Long,
            CXType_ULong => TyKind::ULong,
            CXType_LongLong => TyKind::LongLong,
            CXType_ULongLong => TyKind::ULongLong,
            CXType_Float => TyKind::Float,
            CXType_Double => TyKind::Double,
            CXType_Pointer => TyKind::Pointer,
            CXType_Record => TyKind::Record,
            CXType_Enum => TyKind::Enum,
            CXType_Typedef => TyKind::Typedef,
            CXType_Elaborated => TyKind::Elaborated,
            CXType_ConstantArray => TyKind::ConstantArray,
            CXType_IncompleteArray => TyKind::IncompleteArray,
            CXType_FunctionProto => TyKind::FunctionProto,
            CXType_FunctionNoProto => TyKind::FunctionNoProto,
            k => TyKind::Other(k),
        }
    }

    pub fn spelling(&self) -> String {
        unsafe { cx_string(clang_getTypeSpelling(self.raw)) }
    }

    pub fn canonical(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getCanonicalType(self.raw) }, self.tu)
    }

    pub fn pointee(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getPointeeType(self.raw) }, self.tu)
    }

    /// For elaborated types (`struct X`, `enum Y`), the named type.
    pub fn named(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_Type_getNamedType(self.raw) }, self.tu)
    }

    pub fn is_const(&self) -> bool {
        unsafe { clang_isConstQualifiedType(self.raw) != 0 }
    }

    pub fn declaration(&self) -> Cursor<'tu> {
        Cursor::new(unsafe { clang_getTypeDeclaration(self.raw) }, self.tu)
    }

    pub fn element(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getArrayElementType(self.raw) }, self.tu)
    }

    pub fn array_len(&self) -> Option<u64> {
        let n = unsafe { clang_getArraySize(self.raw) };
        (n >= 0).then_some(n as u64)
    }

    pub fn result(&self) -> Ty<'tu> {
        Ty::new(unsafe { clang_getResultType(self.raw) }, self.tu)
    }

    pub fn args(&self) -> Vec<Ty<'tu>> {
        let n = unsafe { clang_getNumArgTypes(self.raw) };
        (0..n.max(0) as u32).map(|i| Ty::new(unsafe { clang_getArgType(self.raw, i) }, self.tu)).collect()
    }

    /// Size in bytes (None for incomplete types).
    pub fn size(&self) -> Option<u64> {
        let s = unsafe { clang_Type_getSizeOf(self.raw) };
        (s >= 0).then_some(s as u64)
    }

    pub fn align(&self) -> Option<u64> {
        let s = unsafe { clang_Type_getAlignOf(self.raw) };
        (s >= 0).then_some(s as u64)
    }

    /// Bit offset of a (possibly nested anonymous) field by name.
    pub fn offset_of(&self, field: &str) -> Option<u64> {
        let c = std::ffi::CString::new(field).ok()?;
        let off = unsafe { clang_Type_getOffsetOf(self.raw, c.as_ptr()) };
        (off >= 0).then_some(off as u64)
    }

    /// Typedef name of a typedef type (`CUdevice`).
    pub fn typedef_name(&self) -> String {
        unsafe { cx_string(clang_getTypedefName(self.raw)) }
    }
}
