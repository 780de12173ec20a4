//! IR -> IR passes, run in order by [`run_all`] (the tables [`PASSES`], then [`API_PASSES`]):
//! docs, status codes, handles, tracer facts, value tables, parameters, buffer sizes, counted
//! pointer fields, callbacks, signatures (kinds, returns, safety), Python conversions, names,
//! ownership; then the handles libraries share. Each pass is deterministic and reports bad
//! annotations as errors with locations.

pub mod callbacks;
pub mod docs;
pub mod fields;
pub mod handles;
pub mod naming;
pub mod ownership;
pub mod params;
pub mod python;
pub mod shared;
pub mod signature;
pub mod sizes;
pub mod status;
pub mod trace;
pub mod values;

use crate::annotations::{parse_version, Annotations, LibraryAnnotations};
use crate::diag::{Error, Result};
use crate::ir::{Api, Library};

/// What a pass reads besides the library: its annotations and the headers' CUDA version.
pub struct Inputs<'a> {
    pub annotations: &'a LibraryAnnotations,
    pub cuda_version: Option<u32>,
}

/// A pass over one library.
pub type Pass = fn(&mut Library, &Inputs) -> Result<()>;

/// A pass over every library at once, after the [`PASSES`] of each.
pub type ApiPass = fn(&mut Api);

/// Every pass over one library, by name, in the order they run.
pub const PASSES: [(&str, Pass); 13] = [
    ("docs", |lib, _| {
        docs::run(lib);
        Ok(())
    }),
    ("status", |lib, _| status::run(lib)),
    ("handles", |lib, i| handles::run(lib, i.annotations)),
    ("trace", |lib, i| trace::run(lib, i.annotations, i.cuda_version)),
    ("values", |lib, i| values::run(lib, i.annotations, i.cuda_version)),
    ("params", |lib, i| params::run(lib, i.annotations, i.cuda_version)),
    ("sizes", |lib, _| {
        sizes::run(lib);
        Ok(())
    }),
    ("fields", |lib, i| {
        fields::run(lib, i.cuda_version);
        Ok(())
    }),
    ("callbacks", |lib, i| callbacks::run(lib, i.annotations, i.cuda_version)),
    ("signature", |lib, _| signature::run(lib)),
    ("python", |lib, i| python::run(lib, i.annotations, i.cuda_version)),
    ("naming", |lib, i| {
        naming::run(lib, i.cuda_version);
        Ok(())
    }),
    ("ownership", |lib, i| ownership::run(lib, i.annotations, i.cuda_version)),
];

/// The passes over every library, by name, in the order they run after [`PASSES`].
pub const API_PASSES: [(&str, ApiPass); 1] = [("shared", shared::run)];

pub fn run_all(api: &mut Api, annotations: &Annotations) -> Result<()> {
    run_until(api, annotations, None)
}

/// Runs the passes in order over each library, then over all of them, stopping after `last`
/// (one of [`PASSES`] or [`API_PASSES`]) when given: a decision can be seen as it forms
/// (`cargo xtask dump-ir --after PASS`).
pub fn run_until(api: &mut Api, annotations: &Annotations, last: Option<&str>) -> Result<()> {
    let names: Vec<&str> = PASSES.iter().map(|(n, _)| *n).chain(API_PASSES.iter().map(|(n, _)| *n)).collect();
    if let Some(l) = last.filter(|l| !names.contains(l)) {
        return Err(Error::new(format!("no pass '{l}' (passes: {})", names.join(", "))));
    }
    let cuda_version = header_cuda_version(api);
    for lib in &mut api.libraries {
        let inputs = Inputs { annotations: annotations.of(lib.kind), cuda_version };
        for (name, pass) in PASSES {
            pass(lib, &inputs)?;
            if last == Some(name) {
                break;
            }
        }
    }
    if last.is_some_and(|l| PASSES.iter().any(|(name, _)| *name == l)) {
        return Ok(());
    }
    for (name, pass) in API_PASSES {
        pass(api);
        if last == Some(name) {
            break;
        }
    }
    Ok(())
}

/// `CUDA_VERSION` from `cuda.h` (e.g. 12090), else the version the headers were fetched as.
pub fn header_cuda_version(api: &Api) -> Option<u32> {
    api.cuda_version_macro().or_else(|| parse_version(&api.cuda_version))
}

/// Small IR builders for the generator's tests.
#[cfg(test)]
pub(crate) mod build {
    use crate::ir::*;

    pub fn param(name: &str, ty: Type, role: Role) -> Param {
        let direction = if matches!(role, Role::OutValue) { Direction::Out } else { Direction::In };
        Param { direction, role, decided_by: DecidedBy::Annotation, ..Param::new(name, ty) }
    }

    /// An input parameter of `role`, NULL allowed when `nullable`.
    pub fn input(name: &str, ty: Type, role: Role, nullable: bool) -> Param {
        Param { direction: Direction::In, nullable, ..param(name, ty, role) }
    }

    pub fn field(name: &str, ty: Type, offset_bits: u64, anonymous: bool) -> Field {
        Field {
            name: name.into(),
            ty,
            offset_bits,
            bit_width: None,
            anonymous,
            doc: Doc::default(),
            names: Names::default(),
            count: None,
            access: None,
            kernel_params: false,
            python_private: false,
            read_only: false,
        }
    }

    /// A complete named record of 8 bytes, aligned to 8.
    pub fn record(name: &str, kind: RecordKind, fields: Vec<Field>) -> Record {
        Record {
            name: name.into(),
            tag: None,
            kind,
            fields,
            complete: true,
            size: 8,
            align: 8,
            anonymous: false,
            doc: Doc::default(),
            location: Location::default(),
            names: Names::default(),
        }
    }

    pub fn function(name: &str, params: Vec<Param>) -> Function {
        Function::new(name, Type::named("CUresult"), params)
    }

    pub fn typedef(name: &str, target: Type, kind: TypedefKind) -> Typedef {
        Typedef { name: name.into(), target, kind, doc: Doc::default(), location: Location::default(), names: Names::default() }
    }

    /// A driver library with a callback typedef `cb`, an opaque handle `H` and the given functions.
    pub fn library(cb: &str, functions: Vec<Function>) -> Library {
        let mut lib = Library::new(crate::profile::kind("driver"));
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        let fn_ty = Type::FnPtr { ret: Box::new(Type::prim(Prim::Void)), params: vec![void_ptr] };
        lib.typedefs.push(typedef(cb, fn_ty, TypedefKind::Callback { ret: Type::prim(Prim::Void), params: vec![] }));
        lib.typedefs.push(typedef(
            "H",
            Type::ptr(Type::named("H_st"), false),
            TypedefKind::OpaqueHandle { record: "H_st".into() },
        ));
        lib.functions = functions;
        lib
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{Api, Library, Type, TypedefKind};

    #[test]
    fn an_unknown_pass_is_an_error() {
        let mut api = crate::ir::Api::default();
        let e = super::run_until(&mut api, &Default::default(), Some("nmaing")).unwrap_err();
        assert!(e.to_string().contains("no pass 'nmaing'"), "{e}");
        assert!(super::run_until(&mut api, &Default::default(), Some("params")).is_ok());
        assert!(e.to_string().contains("trace") && e.to_string().ends_with("ownership, shared)"), "{e}");
    }

    #[test]
    fn a_run_stops_at_the_tracer_or_before_the_shared_handles() {
        let driver = super::build::library("cb", Vec::new());
        let mut runtime = Library::new(crate::profile::kind("runtime"));
        runtime.typedefs.push(super::build::typedef(
            "hStream",
            Type::ptr(Type::named("H_st"), false),
            TypedefKind::OpaqueHandle { record: "H_st".into() },
        ));
        let shared = |last| {
            let mut api = Api { cuda_version: String::new(), libraries: vec![driver.clone(), runtime.clone()] };
            super::run_until(&mut api, &Default::default(), Some(last)).unwrap();
            api.libraries[1].shared_handles.len()
        };
        assert_eq!((shared("trace"), shared("ownership"), shared("shared")), (0, 0, 1));
    }
}
