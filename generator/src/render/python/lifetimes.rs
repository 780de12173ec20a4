//! How long a Python callable handed to the library lives, as Rust expressions. One-shot kinds
//! (host functions, stream callbacks) are freed by their trampoline; repeating kinds are kept
//! under a key and released by the call that tells the library to stop calling them. Which
//! parameter holds the key, and which call releases, are IR facts (`passes::callbacks`).

use super::{conv, rust_ident};
use crate::ir::{CallbackKind, CallbackUse, Function, PyConv};

/// For a callback parameter of a repeating kind: the Rust expression (after a successful call)
/// of the key its callable is kept under: the registration handle the call returns (an output),
/// else a handle argument. Empty for one-shot kinds.
pub fn keep_key(f: &Function, cb: &CallbackUse) -> Result<String, String> {
    if !cb.kind.repeating() {
        return Ok(String::new());
    }
    let by = cb.kept_by.as_deref().ok_or_else(|| format!("a {:?} callback with no handle to keep it under", cb.kind))?;
    let k = f.params.iter().position(|p| p.name == by).ok_or_else(|| format!("no parameter {by}"))?;
    Ok(match conv(&f.params[k])? {
        PyConv::Out => format!("o{k}.u64()"),
        _ => format!("a{k}"),
    })
}

/// What a release call does: the callback kind, and the Rust expression (evaluated before the
/// call, `Option<u64>`) of the key it releases.
#[derive(serde::Serialize)]
pub struct Release {
    pub kind: CallbackKind,
    pub key: String,
}

/// The release done by `f`, if it is one. The key is read before the call: a program passed by
/// pointer (`nvrtcDestroyProgram`) is zeroed by it.
pub fn release(f: &Function) -> Result<Option<Release>, String> {
    let Some(r) = &f.releases else { return Ok(None) };
    let k = f.params.iter().position(|p| p.name == r.key).ok_or_else(|| format!("no parameter '{}' to release by", r.key))?;
    let p = &f.params[k];
    let key = match conv(p)? {
        PyConv::Handle => format!("Some(a{k})"),
        _ => format!("crate::handles::any_handle({}).map(|(raw, _)| raw)", rust_ident(&p.names.python)),
    };
    Ok(Some(Release { kind: r.callback, key }))
}
