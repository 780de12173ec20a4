//! The tracer's facts: which handle types it names or numbers and which parameters it treats
//! beyond printing their value ([`crate::ir::TraceFacts`]), from the annotations' `[trace]`
//! tables. Every key must name a handle typedef or a declared parameter (or a function absent by
//! its `[since]`/`[until]` range), every value one the tracer knows.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{Library, Resolved, Type};

/// The handle classes of the tracer (`trace::Class`, in snake case).
pub const CLASSES: [&str; 11] =
    ["function", "kernel", "module", "library", "stream", "event", "graph", "graph_exec", "graph_node", "context", "device_ptr"];

/// What `[trace.params]` may say of a parameter.
pub const USES: [&str; 5] = ["image", "kernel_params", "launch_extra", "launched", "frees"];

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors(Vec::new());
    let t = &ann.trace;
    for (name, class) in &t.handles {
        let at = || ann.range_location("trace.handles", name);
        if !CLASSES.contains(&class.as_str()) {
            errors.push(Error::at(at(), format!("[trace.handles] {name}: `{class}` is not a class ({})", CLASSES.join(", "))));
        }
        let ty = Type::named(name.as_str());
        let handle = lib.typedef(name).is_some()
            && matches!(lib.resolve(&ty), Resolved::OpaqueHandle(h) | Resolved::ScalarHandle(h, _) if h.name == *name);
        if !handle {
            errors.push(Error::at(at(), format!("[trace.handles] names `{name}`, which is not a handle typedef of the header")));
        }
    }
    for (key, usage) in &t.params {
        let at = || ann.range_location("trace.params", key);
        if !USES.contains(&usage.as_str()) {
            errors.push(Error::at(at(), format!("[trace.params] {key}: `{usage}` is not one of {}", USES.join(", "))));
        }
        let Some((function, param)) = key.split_once('.') else {
            errors.push(Error::at(at(), format!("[trace.params] `{key}` is not `function.parameter`")));
            continue;
        };
        match lib.functions.iter().find(|f| f.name == function) {
            None if ann.may_be_absent(function, cuda_version) => {}
            None => errors
                .push(Error::at(at(), format!("[trace.params] names function `{function}`, which the header does not declare"))),
            Some(f) if f.param(param).is_none() => {
                errors.push(Error::at(at(), format!("[trace.params] `{function}` has no parameter `{param}`")))
            }
            Some(_) => {}
        }
    }
    errors.finish()?;
    lib.trace.handles = t.handles.clone();
    lib.trace.params = t
        .params
        .iter()
        .filter(|(k, _)| k.split_once('.').is_some_and(|(f, _)| lib.function(f).is_some()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Prim, Role, Type, TypedefKind};
    use crate::passes::build::{function, library, param, typedef};

    fn lib() -> Library {
        let mut lib = library("cb", vec![function("cuLaunchKernel", vec![param("f", Type::named("H"), Role::Value)])]);
        lib.typedefs.push(typedef("cuuint", Type::prim(Prim::UInt), TypedefKind::Alias));
        lib
    }

    #[test]
    fn facts_come_from_the_tables_and_bad_keys_are_errors() {
        let mut l = lib();
        let ann = LibraryAnnotations::parse(
            "a.toml",
            "[trace.handles]\nH = \"function\"\n[trace.params]\n\"cuLaunchKernel.f\" = \"launched\"\n",
        )
        .unwrap();
        run(&mut l, &ann, None).unwrap();
        assert_eq!(l.trace.handles["H"], "function");
        assert_eq!(l.trace.params["cuLaunchKernel.f"], "launched");
        for (text, says) in [
            ("[trace.handles]\ncuuint = \"stream\"\n", "not a handle typedef"),
            ("[trace.handles]\nH = \"fn\"\n", "is not a class"),
            ("[trace.params]\n\"cuLaunchKernel.g\" = \"launched\"\n", "has no parameter `g`"),
            ("[trace.params]\n\"cuNope.f\" = \"launched\"\n", "does not declare"),
            ("[trace.params]\n\"cuLaunchKernel.f\" = \"runs\"\n", "is not one of"),
        ] {
            let ann = LibraryAnnotations::parse("a.toml", text).unwrap();
            let e = run(&mut lib(), &ann, None).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
