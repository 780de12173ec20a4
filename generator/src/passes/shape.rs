//! How each function returns, and whether its typed binding must be `unsafe`.

use crate::ir::{Library, ReturnShape, Role};

pub fn run(lib: &mut Library) {
    for i in 0..lib.functions.len() {
        let f = &lib.functions[i];
        let returns = if f.ret.is_void() {
            ReturnShape::Void
        } else if lib.is_status(&f.ret) {
            ReturnShape::Status
        } else {
            ReturnShape::Value
        };
        // Unsafe exactly where a raw pointer's validity (or a callback's) is the caller's promise.
        let needs_unsafe = f.params.iter().any(|p| match &p.role {
            r if r.is_raw() => true,
            Role::Callback => true,
            Role::InArray { len: None } | Role::OutArray { len: None } => true,
            Role::OutBuffer { len: None, size_from: None, capacity: None, .. } => true,
            _ => false,
        });
        let f = &mut lib.functions[i];
        f.returns = returns;
        f.needs_unsafe = needs_unsafe;
    }
}
