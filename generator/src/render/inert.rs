//! What a C-ABI entry returns when its call cannot run, by [`ReturnKind`]: the one table the
//! `sys` layer and the C shim share.

use crate::ir::{Function, Library, ReturnKind};

/// The expression a `sys` fn returns when its entry cannot be loaded (`e` is the `LoadError`):
/// the library's own status code, a message, or an inert value.
pub(crate) fn on_load_error(f: &Function) -> String {
    match f.ret_kind {
        ReturnKind::Status => "load_status(&e)".into(),
        ReturnKind::StaticCstr => "{ let _ = e; c\"(library not loaded)\".as_ptr() }".into(),
        ReturnKind::Pointer => "{ let _ = e; core::ptr::null_mut() }".into(),
        ReturnKind::Value => "{ let _ = e; unsafe { core::mem::zeroed() } }".into(),
        ReturnKind::Void => "{ let _ = e; }".into(),
    }
}

/// The expression a C-ABI entry returns if its Rust body panicked (it never should): the
/// library's "internal error" status, a message, or an inert value.
pub(crate) fn on_panic(lib: &Library, f: &Function) -> String {
    match (f.ret_kind, &lib.status_enum, lib.status_codes) {
        (ReturnKind::Status, Some(status), Some(codes)) => format!("{status}({})", codes.internal),
        (ReturnKind::StaticCstr, ..) => "c\"cudagen: internal error\".as_ptr()".into(),
        (ReturnKind::Pointer, ..) => "::core::ptr::null_mut()".into(),
        (ReturnKind::Void, ..) => "()".into(),
        (ReturnKind::Status | ReturnKind::Value, ..) => "unsafe { ::core::mem::zeroed() }".into(),
    }
}
