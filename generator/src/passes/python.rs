//! How each parameter crosses into Python ([`PyConv`]), from its role, direction, type and the
//! callback pass's pairing, and which calls keep the GIL (`[keep_gil]`). Runs after `callbacks`
//! and `sizes`.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{
    Direction, Function, HandleStandIns, Library, Param, Prim, PyConv, Resolved, Role, Type, TypedefKind, ValueKind,
};
use std::collections::{BTreeMap, BTreeSet};

/// Parameters and record fields holding a kernel's argument pointer array (`cuLaunchKernel` and
/// kin, `CUDA_KERNEL_NODE_PARAMS`, `CUDA_LAUNCH_PARAMS`).
const KERNEL_PARAMS: &str = "kernelParams";

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let convs: Vec<Vec<PyConv>> = lib.functions.iter().map(|f| f.params.iter().map(|p| conv(lib, f, p)).collect()).collect();
    for (f, convs) in lib.functions.iter_mut().zip(convs) {
        for (p, c) in f.params.iter_mut().zip(convs) {
            p.python = Some(c);
        }
    }
    for f in &mut lib.functions {
        capacity_defaults(f);
    }
    kernel_params_fields(lib);
    stand_ins(lib, ann, cuda_version)?;
    keep_gil(lib, ann, cuda_version)
}

/// Trailing Python arguments that are the in/out capacity of an output array (`numNodes` of
/// `cuGraphGetNodes`) default to 0, which asks for the count: cuda.bindings 12.9 and 13.x
/// declare them `= 0`. Only trailing ones, so every argument after a default has one.
fn capacity_defaults(f: &mut Function) {
    let counts: BTreeSet<String> = f
        .params
        .iter()
        .filter_map(|p| match &p.role {
            Role::OutArray { len: Some(len) } => Some(len.clone()),
            _ => None,
        })
        .collect();
    for p in f.params.iter_mut().rev().filter(|p| p.python.is_some_and(PyConv::is_arg)) {
        if p.python != Some(PyConv::InoutScalar) || !counts.contains(&p.name) {
            break;
        }
        p.py_default = Some(0);
    }
}

/// What else each handle class takes ([`Library::handle_stand_ins`]): the handles the C API
/// takes in its place (`[handles] stand_ins`) and NVIDIA's classes of the same C type
/// (`[foreign_handles]`), a stand-in's NVIDIA classes included. A name that is no handle
/// typedef of the header is an error, unless its `[since]` version is newer than the header.
fn stand_ins(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let handles: Vec<(String, Vec<String>)> = lib
        .typedefs
        .iter()
        .filter(|t| matches!(t.kind, TypedefKind::OpaqueHandle { .. } | TypedefKind::ScalarHandle { .. }))
        .map(|t| {
            let aliases =
                lib.typedefs.iter().filter(|a| matches!(a.kind, TypedefKind::Alias) && a.target == Type::named(&t.name));
            (t.name.clone(), std::iter::once(t.name.clone()).chain(aliases.map(|a| a.name.clone())).collect())
        })
        .collect();
    let mut errors = Errors(Vec::new());
    // `key` is the annotation's key in `[table]`, for the error's line
    let mut resolve = |table: &str, key: &str, name: &str| -> Option<String> {
        let found = handles.iter().find(|(_, names)| names.iter().any(|n| n == name)).map(|(ir, _)| ir.clone());
        if found.is_none() && !ann.may_be_absent(name, cuda_version) {
            errors.push(Error::at(
                ann.range_location(table, key),
                format!("[{table}] names `{name}`, which is no handle typedef of the header"),
            ));
        }
        found
    };
    let mut foreign: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (ir, names) in &handles {
        let set = foreign.entry(ir.clone()).or_default();
        set.extend(ann.foreign_handles.same_names.iter().flat_map(|m| names.iter().map(move |n| format!("{m}.{n}"))));
    }
    for (class, target) in &ann.foreign_handles.classes {
        if let Some(ir) = resolve("foreign_handles.classes", class, target) {
            foreign.entry(ir).or_default().insert(class.clone());
        }
    }
    let mut own: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (target, list) in &ann.handles.stand_ins {
        let Some(ir) = resolve("handles", "stand_ins", target) else { continue };
        let list: Vec<String> = list.iter().filter_map(|s| resolve("handles", "stand_ins", s)).collect();
        own.entry(ir).or_default().extend(list);
    }
    errors.finish()?;
    lib.handle_stand_ins = handles
        .iter()
        .filter_map(|(ir, _)| {
            let handles = own.get(ir).cloned().unwrap_or_default();
            let mut classes = foreign.get(ir).cloned().unwrap_or_default();
            classes.extend(handles.iter().flat_map(|h| foreign.get(h).into_iter().flatten().cloned()));
            (!handles.is_empty() || !classes.is_empty()).then(|| HandleStandIns {
                handle: ir.clone(),
                handles,
                foreign: classes.into_iter().collect(),
            })
        })
        .collect();
    Ok(())
}

/// Marks the record fields that hold a kernel's argument pointers: a `void **` named as the
/// parameter of `cuLaunchKernel` that takes them.
fn kernel_params_fields(lib: &mut Library) {
    let marks: Vec<Vec<bool>> = lib
        .records
        .iter()
        .map(|r| r.fields.iter().map(|f| f.name == KERNEL_PARAMS && pointer_array(lib, &f.ty)).collect())
        .collect();
    for (r, marks) in lib.records.iter_mut().zip(marks) {
        for (f, m) in r.fields.iter_mut().zip(marks) {
            f.kernel_params = m;
        }
    }
}

/// `ty` is an array of untyped pointers (`void **`).
fn pointer_array(lib: &Library, ty: &Type) -> bool {
    match lib.resolve(ty) {
        Resolved::Pointer { pointee, .. } => {
            matches!(lib.resolve(pointee), Resolved::Pointer { pointee: inner, .. } if matches!(lib.resolve(inner), Resolved::Prim(Prim::Void)))
        }
        _ => false,
    }
}

/// Marks the `[keep_gil]` functions. Each must be declared (or absent by its `[since]`/`[until]`
/// range) and take no callback or user data: a call that may run Python code or wait on another
/// thread releases the GIL.
fn keep_gil(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors(Vec::new());
    for (name, why) in &ann.keep_gil {
        let at = ann.range_location("keep_gil", name);
        match lib.functions.iter_mut().find(|f| &f.name == name) {
            None if ann.may_be_absent(name, cuda_version) => {}
            None => errors.push(Error::at(at, format!("[keep_gil] names function `{name}`, which the header does not declare"))),
            Some(f) if f.params.iter().any(|p| matches!(p.role, Role::Callback | Role::UserData)) => {
                errors.push(Error::at(at, format!("[keep_gil] `{name}` takes a callback, so it must release the GIL")))
            }
            Some(f) => f.keeps_gil = Some(why.clone()),
        }
    }
    errors.finish()
}

/// What a value of type `ty` is to Python.
pub fn value_kind(lib: &Library, ty: &Type) -> ValueKind {
    match lib.resolve(ty) {
        Resolved::Prim(Prim::Float | Prim::Double) => ValueKind::Float,
        Resolved::Prim(_) => ValueKind::Int,
        Resolved::Enum(_) => ValueKind::Enum,
        Resolved::OpaqueHandle(_) | Resolved::ScalarHandle(..) => ValueKind::Handle,
        Resolved::Record(r) if r.complete => ValueKind::Record,
        Resolved::Pointer { pointee, .. } if matches!(lib.resolve(pointee), Resolved::Prim(Prim::Char)) => ValueKind::Cstr,
        _ => ValueKind::Ptr,
    }
}

/// [`value_kind`] of the pointee (`Ptr` for a non-pointer).
fn pointee_kind(lib: &Library, p: &Param) -> ValueKind {
    p.ty.pointee().map_or(ValueKind::Ptr, |(t, _)| value_kind(lib, t))
}

fn conv(lib: &Library, f: &Function, p: &Param) -> PyConv {
    match &p.role {
        Role::Length { of }
            if matches!(p.ty, Type::Pointer { .. })
                && f.param(of).is_some_and(|q| matches!(q.role, Role::SelectedValue { .. })) =>
        {
            PyConv::SelectedSize
        }
        Role::SelectedValue { .. } if p.direction == Direction::In => PyConv::SelectedIn,
        Role::SelectedValue { .. } => PyConv::SelectedOut,
        Role::SelectedValues { .. } => PyConv::SelectedList,
        Role::Value | Role::Length { .. } => match value_kind(lib, &p.ty) {
            ValueKind::Int | ValueKind::Enum => PyConv::Int,
            ValueKind::Float => PyConv::Float,
            ValueKind::Handle => PyConv::Handle,
            ValueKind::Record => PyConv::RecordVal,
            _ => PyConv::Ptr,
        },
        Role::InRef | Role::InOutRef => {
            let inout = matches!(p.role, Role::InOutRef);
            match pointee_kind(lib, p) {
                ValueKind::Record => PyConv::RecordRef,
                ValueKind::Int | ValueKind::Enum if inout => PyConv::InoutScalar,
                // An integer handle the callee advances (`CUlogIterator`) is returned, as
                // cuda.bindings does.
                ValueKind::Handle if inout && scalar_handle(lib, p) => PyConv::InoutScalar,
                // The handle object's own value (updated in place), or a temporary int / None.
                ValueKind::Handle => PyConv::HandleRef,
                _ => PyConv::Ptr,
            }
        }
        Role::OutValue if p.counted_by.is_some() => PyConv::OutList,
        Role::OutValue => PyConv::Out,
        Role::CStrIn => PyConv::Cstr,
        Role::CStrOut => PyConv::CstrOut,
        Role::InArray { len: Some(len) } if p.nullable && secondary(f, len, &p.name) => PyConv::InArrayOpt,
        Role::InArray { .. } => PyConv::InArray,
        Role::OutArray { .. } if p.direction == Direction::InOut => PyConv::InArray,
        Role::OutArray { .. } => PyConv::OutArray,
        Role::OutBuffer { len, size_from, .. } => {
            let caller_sized = len.as_deref().and_then(|l| f.param(l)).is_some_and(|l| matches!(l.role, Role::InOutRef));
            // Two-call pattern, or an in/out size: the caller sizes and passes the buffer
            // (cuda.bindings style), checked against the size the IR knows.
            match (size_from.is_some() || caller_sized, p.size.is_some()) {
                (true, true) => PyConv::Buffer,
                (true, false) => PyConv::Ptr,
                (false, _) => PyConv::OutBuffer,
            }
        }
        Role::HostPtr | Role::Opaque if p.name == KERNEL_PARAMS => PyConv::KernelParams,
        Role::HostPtr | Role::Opaque if p.size.is_some() => PyConv::Buffer,
        Role::HostPtr | Role::Opaque => PyConv::Ptr,
        Role::UserData => {
            let carries =
                f.params.iter().filter_map(|q| q.callback.as_ref()).any(|u| u.user_data.as_deref() == Some(p.name.as_str()));
            if carries {
                PyConv::UserdataPaired
            } else {
                PyConv::Ptr
            }
        }
        Role::Callback => PyConv::Callback,
    }
}

/// Whether `name` is not the array its count parameter `len` counts, but one more array of
/// that many elements (`dependencyData` beside `dependencies`).
fn secondary(f: &Function, len: &str, name: &str) -> bool {
    f.param(len).is_some_and(|l| matches!(&l.role, Role::Length { of } if of != name))
}

fn scalar_handle(lib: &Library, p: &Param) -> bool {
    p.ty.pointee().is_some_and(|(t, _)| matches!(lib.resolve(t), Resolved::ScalarHandle(..)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{SizeFrom, SizeLink};
    use crate::passes::build::{function, library, param};

    fn convs(lib: &mut Library) -> Vec<Vec<PyConv>> {
        let tables = LibraryAnnotations::parse("a.toml", "[callbacks.typedefs]\nCUhostFn = \"host\"\n").unwrap();
        crate::passes::callbacks::run(lib, &tables, None).unwrap();
        run(lib, &LibraryAnnotations::default(), None).unwrap();
        lib.functions.iter().map(|f| f.params.iter().map(|p| p.python.unwrap()).collect()).collect()
    }

    #[test]
    fn conversions_follow_role_direction_and_type() {
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        let mut sized = param("dst", void_ptr.clone(), Role::HostPtr);
        sized.size = Some(SizeLink { from: SizeFrom::Param("n".into()), writes: true });
        let mut inout = param("count", Type::ptr(Type::prim(Prim::Int), false), Role::InOutRef);
        inout.direction = Direction::InOut;
        let mut lib = library(
            "CUhostFn",
            vec![
                function(
                    "cuLaunchKernel",
                    vec![
                        param("f", Type::named("H"), Role::Value),
                        param("kernelParams", Type::ptr(void_ptr.clone(), false), Role::Opaque),
                        param("n", Type::prim(Prim::SizeT), Role::Value),
                        sized,
                        inout,
                        param("out", Type::ptr(Type::named("H"), false), Role::OutValue),
                        param("handle", Type::ptr(Type::named("H"), false), Role::InRef),
                    ],
                ),
                function(
                    "cuHost",
                    vec![
                        param("fn", Type::named("CUhostFn"), Role::Callback),
                        param("userData", void_ptr.clone(), Role::UserData),
                    ],
                ),
                function(
                    "cuRaw",
                    vec![param("fn", Type::named("CUraw"), Role::Callback), param("userData", void_ptr, Role::UserData)],
                ),
            ],
        );
        use PyConv::*;
        assert_eq!(
            convs(&mut lib),
            vec![
                vec![Handle, KernelParams, Int, Buffer, InoutScalar, Out, HandleRef],
                vec![Callback, UserdataPaired],
                // A raw callback's user data is an ordinary address.
                vec![Callback, Ptr],
            ]
        );
        assert!(InoutScalar.is_arg() && InoutScalar.is_out() && !SelectedSize.is_arg() && !Out.is_arg());
    }

    #[test]
    fn kernel_params_fields_are_void_pointer_arrays_of_that_name() {
        use crate::ir::{Doc, Field, Names, Record, RecordKind};
        let void_pp = Type::ptr(Type::ptr(Type::prim(Prim::Void), false), false);
        let field = |name: &str, ty: Type| Field {
            name: name.into(),
            ty,
            offset_bits: 0,
            bit_width: None,
            anonymous: false,
            doc: Doc::default(),
            names: Names::default(),
            count: None,
            kernel_params: false,
        };
        let mut lib = library("CUhostFn", vec![]);
        lib.records.push(Record {
            name: "CUDA_KERNEL_NODE_PARAMS".into(),
            tag: None,
            kind: RecordKind::Struct,
            fields: vec![
                field("kernelParams", void_pp.clone()),
                field("extra", void_pp),
                field("sharedMemBytes", Type::prim(Prim::UInt)),
            ],
            complete: true,
            size: 24,
            align: 8,
            anonymous: false,
            doc: Doc::default(),
            location: Default::default(),
            names: Names::default(),
        });
        lib.records.push(Record {
            name: "Other".into(),
            fields: vec![field("kernelParams", Type::ptr(Type::prim(Prim::Void), false))],
            ..lib.records[0].clone()
        });
        run(&mut lib, &LibraryAnnotations::default(), None).unwrap();
        let marks: Vec<Vec<bool>> = lib.records.iter().map(|r| r.fields.iter().map(|f| f.kernel_params).collect()).collect();
        // `extra` is a `void **` too, but of another role; a plain `void *kernelParams` is an address
        assert_eq!(marks, vec![vec![true, false, false], vec![false]]);
    }

    #[test]
    fn stand_ins_follow_aliases_and_bring_their_nvidia_classes() {
        use crate::passes::build::typedef;
        let mut lib = library("CUhostFn", vec![]);
        let opaque = |n: &str| {
            typedef(n, Type::ptr(Type::named(format!("{n}_st")), false), TypedefKind::OpaqueHandle { record: format!("{n}_st") })
        };
        lib.typedefs.push(opaque("CUfunction"));
        lib.typedefs.push(opaque("CUkernel"));
        lib.typedefs.push(typedef("CUdevice_v1", Type::prim(Prim::Int), TypedefKind::ScalarHandle { prim: Prim::Int }));
        lib.typedefs.push(typedef("CUdevice", Type::named("CUdevice_v1"), TypedefKind::Alias));
        let ann = |toml: &str| LibraryAnnotations::parse("a.toml", toml).unwrap();
        let toml = "[handles]\nstand_ins = { CUfunction = [\"CUkernel\"] }\n[foreign_handles]\nsame_names = [\"nv.driver\"]\n\
                    [foreign_handles.classes]\n\"nv.runtime.cudaKernel_t\" = \"CUkernel\"\n";
        run(&mut lib, &ann(toml), None).unwrap();
        let f = lib.stand_ins("CUfunction").unwrap();
        assert_eq!(f.handles, ["CUkernel"]);
        // the stand-in's NVIDIA classes are taken too, sorted
        assert_eq!(f.foreign, ["nv.driver.CUfunction", "nv.driver.CUkernel", "nv.runtime.cudaKernel_t"]);
        // an alias is a name of its handle (`CUdevice` of `CUdevice_v1`)
        assert_eq!(lib.stand_ins("CUdevice_v1").unwrap().foreign, ["nv.driver.CUdevice", "nv.driver.CUdevice_v1"]);
        assert!(lib.stand_ins("CUkernel").unwrap().handles.is_empty());

        let bad = "[foreign_handles.classes]\n\"nv.runtime.cudaStream_t\" = \"CUstream\"\n";
        let e = run(&mut lib, &ann(bad), None).unwrap_err().to_string();
        assert!(e.contains("a.toml:2:") && e.contains("`CUstream`, which is no handle typedef"), "{e}");
        // unless the header is older than the name's `[since]`
        run(&mut lib, &ann(&format!("{bad}[since]\nCUstream = \"12.4\"\n")), Some(12030)).unwrap();
    }

    #[test]
    fn optional_arrays_and_owned_lists() {
        let node = Type::named("H");
        let count = |name: &str, of: &str| param(name, Type::prim(Prim::SizeT), Role::Length { of: of.into() });
        let mut data = param("dependencyData", Type::ptr(Type::named("E"), true), Role::InArray { len: Some("n".into()) });
        data.nullable = true;
        let mut deps = param("dependencies", Type::ptr(node.clone(), true), Role::InArray { len: Some("n".into()) });
        deps.nullable = true;
        let mut owned = param("dependencies_out", Type::ptr(Type::ptr(node, true), false), Role::OutValue);
        owned.counted_by = Some("num_out".into());
        let mut lib = library(
            "CUhostFn",
            vec![
                function("cuBegin", vec![deps, data, count("n", "dependencies")]),
                function("cuInfo", vec![owned, param("num_out", Type::ptr(Type::prim(Prim::SizeT), false), Role::OutValue)]),
            ],
        );
        use PyConv::*;
        // NULL data for every dependency is the library's default; NULL dependencies are not
        assert_eq!(convs(&mut lib), vec![vec![InArray, InArrayOpt, Int], vec![OutList, Out]]);
    }

    #[test]
    fn keep_gil_marks_declared_functions_without_callbacks() {
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        let lib = || {
            library(
                "CUhostFn",
                vec![
                    function("nvrtcVersion", vec![param("major", Type::ptr(Type::prim(Prim::Int), false), Role::OutValue)]),
                    function(
                        "cuHost",
                        vec![
                            param("fn", Type::named("CUhostFn"), Role::Callback),
                            param("userData", void_ptr.clone(), Role::UserData),
                        ],
                    ),
                ],
            )
        };
        let ann = |toml: &str| LibraryAnnotations::parse("a.toml", toml).unwrap();

        let mut ok = lib();
        run(&mut ok, &ann("[keep_gil]\nnvrtcVersion = \"stores constants\"\n"), None).unwrap();
        assert_eq!(ok.functions[0].keeps_gil.as_deref(), Some("stores constants"));
        assert_eq!(ok.functions[1].keeps_gil, None);

        let e = run(&mut lib(), &ann("[keep_gil]\ncuHost = \"no\"\n"), None).unwrap_err().to_string();
        assert!(e.contains("a.toml:2") && e.contains("`cuHost` takes a callback"), "{e}");
        let e = run(&mut lib(), &ann("[keep_gil]\ncuGone = \"no\"\n"), None).unwrap_err().to_string();
        assert!(e.contains("does not declare"), "{e}");
    }
}
