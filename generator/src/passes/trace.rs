//! The tracer's facts: which handle types it names or numbers ([`crate::ir::TraceFacts`]) and
//! which parameters it treats beyond printing their value ([`crate::ir::Param::trace`]), from the
//! annotations' `[trace]` tables; a `[kernel_params]` parameter is the tracer's `kernel_params`
//! unless `[trace.params]` says otherwise (stated once). Every key must name a handle typedef or a declared parameter
//! (or a function absent by its `[since]`/`[until]` range); the values are checked as they are
//! read (`TraceClass`, `TraceUse`).

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{Library, Resolved, TraceUse, Type};

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors(Vec::new());
    let t = &ann.trace;
    for name in t.handles.keys() {
        let ty = Type::named(name.as_str());
        let handle = lib.typedef(name).is_some()
            && matches!(lib.resolve(&ty), Resolved::OpaqueHandle(h) | Resolved::ScalarHandle(h, _) if h.name == *name);
        if !handle {
            errors.push(Error::at(
                ann.range_location("trace.handles", name),
                format!("[trace.handles] names `{name}`, which is not a handle typedef of the header"),
            ));
        }
    }
    for key in t.params.keys() {
        let at = || ann.range_location("trace.params", key);
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
    for f in &mut lib.functions {
        for p in &mut f.params {
            let key = format!("{}.{}", f.name, p.name);
            let kernel = ann.kernel_params.params.contains(&key).then_some(TraceUse::KernelParams);
            p.trace = t.params.get(&key).copied().or(kernel);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Prim, Role, TraceClass, Type, TypedefKind};
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
        assert_eq!(l.trace.handles["H"], TraceClass::Function);
        assert_eq!(l.functions[0].params[0].trace, Some(TraceUse::Launched));
        let ann = LibraryAnnotations::parse("a.toml", "[kernel_params]\nparams = [\"cuLaunchKernel.f\"]\n").unwrap();
        run(&mut l, &ann, None).unwrap();
        assert_eq!(l.functions[0].params[0].trace, Some(TraceUse::KernelParams), "[kernel_params] is said once");
        for (text, says) in [
            ("[trace.handles]\ncuuint = \"stream\"\n", "not a handle typedef"),
            ("[trace.params]\n\"cuLaunchKernel.g\" = \"launched\"\n", "has no parameter `g`"),
            ("[trace.params]\n\"cuNope.f\" = \"launched\"\n", "does not declare"),
        ] {
            let ann = LibraryAnnotations::parse("a.toml", text).unwrap();
            let e = run(&mut lib(), &ann, None).unwrap_err().to_string();
            assert!(e.contains(says), "{text}: {e}");
        }
    }

    #[test]
    fn an_unknown_class_or_use_is_an_error_at_its_line() {
        for text in ["[trace.handles]\nH = \"fn\"\n", "[trace.params]\n\"cuLaunchKernel.f\" = \"runs\"\n"] {
            let e = LibraryAnnotations::parse("a.toml", text).unwrap_err();
            assert!(e.to_string().starts_with("a.toml:2: unknown variant"), "{text}: {e}");
        }
    }

    /// `TraceClass` is the generator's copy of the tracer's `trace::Class`: the same variants.
    #[test]
    fn classes_are_the_tracers() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../runtime/core/src/trace.rs");
        let text = std::fs::read_to_string(root).unwrap();
        let body = text.split("pub enum Class {").nth(1).and_then(|t| t.split('}').next()).expect("trace::Class");
        let tracer: Vec<&str> = body.split(',').map(str::trim).filter(|v| !v.is_empty()).collect();
        let ours: Vec<String> = tracer
            .iter()
            .filter_map(|v| {
                let snake = heck::ToSnakeCase::to_snake_case(*v);
                serde_json::from_value::<TraceClass>(serde_json::Value::String(snake)).ok().map(|c| format!("{c:?}"))
            })
            .collect();
        assert!(tracer.len() > 1 && tracer.iter().all(|v| v.chars().all(char::is_alphanumeric)), "{tracer:?}");
        assert_eq!(ours, tracer, "every trace::Class variant is a TraceClass of the same name");
    }
}
