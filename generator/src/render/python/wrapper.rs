//! The public module of a library whose cuda.bindings module raises instead of returning
//! `(status, ...)` tuples (`PythonConvention::Exceptions`: `nvjitlink`, `nvvm`).
//!
//! The extension functions keep the tuple convention (the same conversions and checks as every
//! other module) in the private module `cudagen._<module>`; `cudagen.<module>` wraps each in a
//! Python function with cuda.bindings' snake_case name and parameters (`IR names.python`), which
//! passes its arguments on as given (the extension converts them, `str` included, and names the
//! public function and parameter when it refuses one), raises `<error_class>(status)` on failure,
//! and returns the outputs alone or as a tuple, handles as ints. What each argument and output
//! needs is read from the conversion kinds `passes::python` decided.

use super::functions::{FnView, Ret};
use crate::ir::{Library, PyConv, ValueKind};
use serde::Serialize;

#[derive(Serialize)]
pub struct WrapperView {
    pub module: String,
    /// `cudagen._nvjitlink`: the tuple-convention module the wrappers call.
    pub private: String,
    pub error_class: String,
    /// Python name of the status enum (`Result`).
    pub status: String,
    pub functions: Vec<WrapFn>,
    /// Enum classes: Python name, private class name, members (Python name, C name).
    pub enums: Vec<WrapEnum>,
}

#[derive(Serialize)]
pub struct WrapEnum {
    pub py: String,
    pub cname: String,
    pub members: Vec<(String, i64)>,
}

#[derive(Serialize)]
pub struct WrapFn {
    pub py: String,
    /// The private module's function (the C name).
    pub cname: String,
    pub args: Vec<WrapArg>,
    /// How each output is returned: `int` (a handle) or `` (as the private function gives it).
    pub outs: Vec<String>,
    /// A `const char*` result: returned decoded.
    pub cstr: bool,
    pub doc: String,
}

#[derive(Serialize)]
pub struct WrapArg {
    pub py: String,
    pub default: String,
    pub stub: String,
}

pub fn view(lib: &Library, module: &str, error_class: &str, fns: &[FnView]) -> WrapperView {
    let status = lib.status_enum.as_ref().and_then(|s| lib.enum_named(s)).map(|e| e.names.python.clone()).unwrap_or_default();
    let enums = lib
        .enums
        .iter()
        .map(|e| WrapEnum {
            py: e.names.python.clone(),
            cname: e.name.clone(),
            members: e.variants.iter().map(|v| (v.names.python.clone(), v.value)).collect(),
        })
        .collect();
    let functions = fns.iter().filter_map(|v| lib.functions.iter().find(|f| f.name == v.name).map(|f| wrap_fn(f, v))).collect();
    WrapperView {
        module: module.to_string(),
        private: format!("cudagen._{module}"),
        error_class: error_class.to_string(),
        status,
        functions,
        enums,
    }
}

fn wrap_fn(f: &crate::ir::Function, v: &FnView) -> WrapFn {
    let args = v
        .args
        .iter()
        .map(|&i| {
            let p = &v.params[i];
            let stub = match (p.kind, p.scalar.kind) {
                (PyConv::Cstr, _) => "str | bytes | None".to_string(),
                (PyConv::InArray, ValueKind::Cstr) => "Sequence[str | bytes]".to_string(),
                (_, ValueKind::Handle | ValueKind::Enum) => "int".to_string(),
                _ => p.stub.clone(),
            };
            WrapArg { py: p.py.clone(), default: p.default.clone(), stub }
        })
        .collect();
    let outs = v
        .outs
        .iter()
        .map(|&o| if v.params[o].scalar.kind == ValueKind::Handle { "int".to_string() } else { String::new() })
        .collect();
    let doc = f.doc.brief.replace('\\', "\\\\").replace("\"\"\"", "'''");
    WrapFn { py: f.names.python.clone(), cname: v.name.clone(), args, outs, cstr: v.ret == Ret::Cstr, doc }
}
