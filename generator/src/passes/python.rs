//! How each parameter crosses into Python ([`PyConv`]): one arm per [`ParamKind`]
//! (`passes::signature`), refined only by the value kind of its C type and the `[kernel_params]`
//! annotation; which calls keep the GIL (`[keep_gil]`). Runs after `signature`.

use crate::annotations::LibraryAnnotations;
use crate::diag::{Error, Errors, Result};
use crate::ir::{
    BufferSize, Count, Function, HandleStandIns, Library, Param, ParamKind, Prim, PyConv, Resolved, Type, TypedefKind, ValueKind,
};
use std::collections::{BTreeMap, BTreeSet};

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let kernel = kernel_params(lib, ann, cuda_version)?;
    let convs: Vec<Vec<PyConv>> = lib
        .functions
        .iter()
        .map(|f| f.params.iter().map(|p| conv(lib, f, p, kernel.contains(&format!("{}.{}", f.name, p.name)))).collect())
        .collect();
    for (f, convs) in lib.functions.iter_mut().zip(convs) {
        for (p, c) in f.params.iter_mut().zip(convs) {
            p.python = Some(c);
        }
    }
    for f in &mut lib.functions {
        capacity_defaults(f);
    }
    stand_ins(lib, ann, cuda_version)?;
    read_only_fields(lib, ann, cuda_version)?;
    keep_gil(lib, ann, cuda_version)
}

/// Marks the `[read_only_fields]` (`"record.field"`). Each must be declared (or absent by its
/// `[since]`/`[until]` range, or its record's).
fn read_only_fields(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors(Vec::new());
    for key in ann.read_only_fields.keys() {
        let (record, name) = key.split_once('.').unwrap_or((key, ""));
        let field = lib.records.iter_mut().find(|r| r.name == record).and_then(|r| r.fields.iter_mut().find(|f| f.name == name));
        match field {
            Some(f) => f.read_only = true,
            None if ann.may_be_absent(key, cuda_version) || ann.may_be_absent(record, cuda_version) => {}
            None => errors.push(Error::at(
                ann.range_location("read_only_fields", key),
                format!("[read_only_fields] names `{key}`, which is no record field of the header"),
            )),
        }
    }
    errors.finish()
}

/// Trailing Python arguments that are the in/out capacity of an output array (`numNodes` of
/// `cuGraphGetNodes`) default to 0, which asks for the count: cuda.bindings 12.9 and 13.x
/// declare them `= 0`. Only trailing ones, so every argument after a default has one.
fn capacity_defaults(f: &mut Function) {
    let counts: BTreeSet<String> = f
        .params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::OutArray { count, .. } => count.param().map(str::to_string),
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
/// takes in its place (`[handles] stand_ins`), its const twins ([`const_twins`]) and NVIDIA's
/// classes of the same C type (`[foreign_handles]`), a stand-in's NVIDIA classes included. A name
/// that is no handle typedef of the header is an error, unless its `[since]` version is newer
/// than the header.
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
    for (ir, twins) in const_twins(lib) {
        own.entry(ir).or_default().extend(twins);
    }
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

/// The handle typedefs that differ only in `const` (`cudaArray_t` and `cudaArray_const_t`), each
/// with its twins: C converts one to the other implicitly, and so does cuda.bindings, so each
/// class takes the others' objects. (Typedefs of one type without a `const` between them are
/// distinct handles: `CUtexObject` and `CUsurfObject` are both `unsigned long long`.)
fn const_twins(lib: &Library) -> BTreeMap<String, Vec<String>> {
    let handles: Vec<&crate::ir::Typedef> = lib
        .typedefs
        .iter()
        .filter(|t| matches!(t.kind, TypedefKind::OpaqueHandle { .. } | TypedefKind::ScalarHandle { .. }))
        .collect();
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for t in &handles {
        let twin = |u: &&&crate::ir::Typedef| u.target != t.target && u.target.without_const() == t.target.without_const();
        for u in handles.iter().filter(twin) {
            out.entry(t.name.clone()).or_default().push(u.name.clone());
        }
    }
    out
}

/// `[kernel_params]`: marks the record fields and returns the parameters (`function.parameter`)
/// that hold a kernel's argument pointers. Each must be declared (or absent by its
/// `[since]`/`[until]` range) and be a `void **`.
fn kernel_params(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<BTreeSet<String>> {
    let mut errors = Errors(Vec::new());
    let params = declared_pointer_arrays(lib, ann, cuda_version, &ann.kernel_params.params, &mut errors, |key| {
        key.split_once('.').and_then(|(f, p)| lib.function(f)?.param(p)).map(|p| &p.ty)
    });
    let fields = declared_pointer_arrays(lib, ann, cuda_version, &ann.kernel_params.fields, &mut errors, |key| {
        let (r, n) = key.split_once('.')?;
        lib.records.iter().find(|x| x.name == r)?.fields.iter().find(|x| x.name == n).map(|f| &f.ty)
    });
    errors.finish()?;
    for r in &mut lib.records {
        for f in &mut r.fields {
            f.kernel_params = fields.contains(&format!("{}.{}", r.name, f.name));
        }
    }
    Ok(params)
}

/// The keys of `list` whose type (`ty`) is a `void **`; an error for any other, and for one not
/// declared unless its `[since]`/`[until]` range (or its function's) says it may be absent.
fn declared_pointer_arrays<'a>(
    lib: &'a Library,
    ann: &LibraryAnnotations,
    cuda_version: Option<u32>,
    list: &[String],
    errors: &mut Errors,
    ty: impl Fn(&str) -> Option<&'a Type>,
) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for key in list {
        let at = || ann.item_location("kernel_params", key);
        let outer = key.split('.').next().unwrap_or_default();
        match ty(key) {
            Some(t) if pointer_array(lib, t) => {
                out.insert(key.clone());
            }
            Some(_) => errors.push(Error::at(at(), format!("[kernel_params] `{key}` is no `void **`"))),
            None if ann.may_be_absent(key, cuda_version) || ann.may_be_absent(outer, cuda_version) => {}
            None => errors.push(Error::at(at(), format!("[kernel_params] names `{key}`, which the header does not declare"))),
        }
    }
    out
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
            Some(f) if f.params.iter().any(|p| matches!(p.kind, ParamKind::Callback { .. } | ParamKind::UserData { .. })) => {
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

/// How a by-value parameter of type `ty` crosses (an untyped pointer is an address; a typedef
/// with a class of its own, [`typedef_class`], takes that class's conversion).
fn by_value(lib: &Library, ty: &Type) -> PyConv {
    let class = match ty {
        Type::Named { name } => {
            lib.typedef(name).filter(|t| matches!(t.kind, TypedefKind::Alias)).and_then(|t| typedef_class(lib, t))
        }
        _ => None,
    };
    match value_kind(lib, ty) {
        ValueKind::Enum if lib.profile().python.member_enums() => PyConv::Enum,
        ValueKind::Int if class.is_some() => PyConv::TypedefInt,
        ValueKind::Int | ValueKind::Enum => PyConv::Int,
        ValueKind::Float => PyConv::Float,
        ValueKind::Handle => PyConv::Handle,
        ValueKind::Record => PyConv::RecordVal,
        ValueKind::Ptr if class.is_some() => PyConv::TypedefPtr,
        ValueKind::Cstr | ValueKind::Ptr => PyConv::Ptr,
    }
}

/// Whether typedef `t` gets a Python class of its own (as cuda.bindings gives it one), and its
/// shape: (pointer, bits). A callback typedef, an integer alias (`cuuint64_t`, `EGLint`) or a
/// `void *` alias of an interop object (`EGLImageKHR`); handles have classes of their own.
pub fn typedef_class(lib: &Library, t: &crate::ir::Typedef) -> Option<(bool, u32)> {
    match (&t.kind, lib.resolve(&Type::named(&t.name))) {
        (TypedefKind::Callback { .. }, _) => Some((true, 64)),
        // cuda.bindings holds signed aliases (`EGLint`) as unsigned values of the same width too.
        (TypedefKind::Alias, Resolved::Prim(p)) if p.is_integer() => Some((false, (p.size() * 8) as u32)),
        (TypedefKind::Alias, Resolved::Pointer { .. }) => Some((true, 64)),
        _ => None,
    }
}

/// The Python conversion of `p`, one arm per [`ParamKind`]; `kernel`: `[kernel_params]` names it.
fn conv(lib: &Library, f: &Function, p: &Param, kernel: bool) -> PyConv {
    match &p.kind {
        ParamKind::Value | ParamKind::Length { .. } | ParamKind::Unfit { .. } => by_value(lib, &p.ty),
        ParamKind::SelectedLen { by_pointer: false, .. } => by_value(lib, &p.ty),
        // Set by the selected value's conversion from its member's size (not an argument).
        ParamKind::SelectedLen { by_pointer: true, .. } => PyConv::SelectedSize,
        ParamKind::Callback { .. } => PyConv::Callback,
        ParamKind::UserData { carries: Some(_) } => PyConv::UserdataPaired,
        ParamKind::UserData { carries: None } => PyConv::Ptr,
        ParamKind::Address { .. } if kernel => PyConv::KernelParams,
        ParamKind::Address { size: Some(_) } => PyConv::Buffer,
        ParamKind::Address { size: None } => PyConv::Ptr,
        // A buffer or an address, as cuda.bindings takes it (`data`, `buffer`); checked against
        // its size argument where `passes::sizes` linked one.
        ParamKind::InBytes { .. } => match p.size {
            Some(_) => PyConv::Buffer,
            None => PyConv::Ptr,
        },
        ParamKind::InRef { pointee, .. } | ParamKind::InOutRef { pointee, .. } => {
            let inout = matches!(p.kind, ParamKind::InOutRef { .. });
            match value_kind(lib, &pointee.ty) {
                ValueKind::Record if p.nullable || lib.profile().python.none_records() => PyConv::RecordRefOpt,
                ValueKind::Record => PyConv::RecordRef,
                ValueKind::Int | ValueKind::Enum if inout => PyConv::InoutScalar,
                // An integer handle the callee advances (`CUlogIterator`) is returned, as
                // cuda.bindings does.
                ValueKind::Handle if inout && matches!(lib.resolve(&pointee.ty), Resolved::ScalarHandle(..)) => {
                    PyConv::InoutScalar
                }
                // The handle object's own value (updated in place), or a temporary int / None.
                ValueKind::Handle => PyConv::HandleRef,
                _ => PyConv::Ptr,
            }
        }
        ParamKind::OutValue { .. } if p.counted_by.is_some() => PyConv::OutList,
        ParamKind::OutValue { .. } => PyConv::Out,
        ParamKind::CstrIn { .. } => PyConv::Cstr,
        ParamKind::CstrOut => PyConv::CstrOut,
        ParamKind::InArray { nullable: true, count, .. } | ParamKind::CstrArray { nullable: true, count, .. }
            if secondary(f, count, &p.name) =>
        {
            PyConv::InArrayOpt
        }
        ParamKind::InArray { .. } | ParamKind::CstrArray { .. } | ParamKind::OutArray { reads: true, .. } => PyConv::InArray,
        ParamKind::OutArray { .. } => PyConv::OutArray,
        // Sized by a size query or by the caller's in/out count: the caller passes the buffer
        // (cuda.bindings style), checked against the size the IR knows.
        ParamKind::OutBuffer { size: BufferSize::Query { .. } | BufferSize::BadQuery { .. }, .. }
        | ParamKind::OutBuffer { size: BufferSize::Count { count: Count::Passed { .. } }, .. } => match p.size {
            Some(_) => PyConv::Buffer,
            None => PyConv::Ptr,
        },
        ParamKind::OutBuffer { .. } => PyConv::OutBuffer,
        ParamKind::SelectedIn { .. } => PyConv::SelectedIn,
        ParamKind::SelectedOut { .. } => PyConv::SelectedOut,
        ParamKind::SelectedList { .. } => PyConv::SelectedList,
    }
}

/// Whether array `name` is not the one its computed count was declared for, but one more array
/// of that many elements (`dependencyData` beside `dependencies`): None is taken whatever the count.
fn secondary(f: &Function, count: &Count, name: &str) -> bool {
    let Count::Computed { param } = count else { return false };
    f.param(param).is_some_and(|l| matches!(&l.role, crate::ir::Role::Length { of } if of != name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Direction, Role, SizeFrom, SizeLink};
    use crate::passes::build::{function, library, param};

    /// The conversions of `lib`'s parameters, with the annotations `ann`.
    fn convs(lib: &mut Library, ann: &str) -> Vec<Vec<PyConv>> {
        let tables = LibraryAnnotations::parse("a.toml", "[callbacks.typedefs]\nCUhostFn = \"host\"\n").unwrap();
        crate::passes::callbacks::run(lib, &tables, None).unwrap();
        crate::passes::signature::run(lib).unwrap();
        run(lib, &LibraryAnnotations::parse("a.toml", ann).unwrap(), None).unwrap();
        lib.functions.iter().map(|f| f.params.iter().map(|p| p.python.unwrap()).collect()).collect()
    }

    #[test]
    fn conversions_follow_the_kind_and_type() {
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
            convs(&mut lib, "[kernel_params]\nparams = [\"cuLaunchKernel.kernelParams\"]\n"),
            vec![
                vec![Handle, KernelParams, Int, Buffer, InoutScalar, Out, HandleRef],
                vec![Callback, UserdataPaired],
                // A raw callback's user data is an ordinary address.
                vec![Callback, Ptr],
            ]
        );
        assert!(InoutScalar.is_arg() && InoutScalar.is_out() && !SelectedSize.is_arg() && !Out.is_arg());
    }

    /// A byte input (`nvJitLinkAddData`'s `data`) is a buffer checked against its size argument
    /// once `passes::sizes` linked one, else an address.
    #[test]
    fn a_sized_byte_input_is_a_checked_buffer() {
        let bytes = |linked: bool| {
            let mut data = param("data", Type::ptr(Type::prim(Prim::Void), true), Role::InArray { len: Some("size".into()) });
            data.size = linked.then(|| SizeLink { from: SizeFrom::Param("size".into()), writes: false });
            let size = param("size", Type::prim(Prim::SizeT), Role::Length { of: "data".into() });
            function("cuAddData", vec![data, size])
        };
        let mut lib = library("CUhostFn", vec![bytes(true), bytes(false)]);
        use PyConv::*;
        assert_eq!(convs(&mut lib, ""), vec![vec![Buffer, Int], vec![Ptr, Int]]);
    }

    #[test]
    fn kernel_params_are_the_annotated_void_pointer_arrays() {
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
            access: None,
            kernel_params: false,
            python_private: false,
            read_only: false,
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
        let ann = |fields: &str| {
            let toml = format!("[kernel_params]\nfields = [{fields}]\n\n[since]\n\"New.kernelParams\" = \"13.0\"\n");
            LibraryAnnotations::parse("a.toml", &toml).unwrap()
        };
        run(&mut lib, &ann("\"CUDA_KERNEL_NODE_PARAMS.kernelParams\", \"New.kernelParams\""), Some(12090)).unwrap();
        let marks: Vec<Vec<bool>> = lib.records.iter().map(|r| r.fields.iter().map(|f| f.kernel_params).collect()).collect();
        // `extra` is a `void **` too, but not named
        assert_eq!(marks, vec![vec![true, false, false], vec![false]]);
        // a plain `void *kernelParams` is an address; a name must exist (unless `[since]` says)
        let e = run(&mut lib, &ann("\"Other.kernelParams\""), None).unwrap_err().to_string();
        assert!(e.contains("a.toml:2:") && e.contains("`Other.kernelParams` is no `void **`"), "{e}");
        let e = run(&mut lib, &ann("\"New.kernelParams\""), Some(13000)).unwrap_err().to_string();
        assert!(e.contains("`New.kernelParams`, which the header does not declare"), "{e}");
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
    fn const_twins_take_each_other_and_read_only_fields_are_marked() {
        use crate::ir::RecordKind;
        use crate::passes::build::{field, record, typedef};
        let mut lib = library("CUhostFn", vec![]);
        let opaque = |n: &str, st: &str, is_const: bool| {
            typedef(n, Type::ptr(Type::named(st), is_const), TypedefKind::OpaqueHandle { record: st.into() })
        };
        lib.typedefs.push(opaque("cudaArray_t", "cudaArray", false));
        lib.typedefs.push(opaque("cudaArray_const_t", "cudaArray", true));
        lib.typedefs.push(opaque("cudaStream_t", "CUstream_st", false));
        // one integer type without a `const` between them: two distinct handles
        let scalar = |n: &str| typedef(n, Type::prim(Prim::ULongLong), TypedefKind::ScalarHandle { prim: Prim::ULongLong });
        lib.typedefs.extend([scalar("CUtexObject"), scalar("CUsurfObject")]);
        let chars = Type::Array { elem: Box::new(Type::prim(Prim::Char)), len: 16 };
        lib.records.push(record(
            "CUuuid",
            RecordKind::Struct,
            vec![field("bytes", chars.clone(), 0, false), field("other", chars, 0, false)],
        ));
        let ann = |toml: &str| LibraryAnnotations::parse("a.toml", toml).unwrap();
        run(&mut lib, &ann("[read_only_fields]\n\"CUuuid.bytes\" = \"the driver fills it\"\n"), None).unwrap();
        assert_eq!(lib.stand_ins("cudaArray_t").unwrap().handles, ["cudaArray_const_t"]);
        assert_eq!(lib.stand_ins("cudaArray_const_t").unwrap().handles, ["cudaArray_t"]);
        assert!(lib.stand_ins("cudaStream_t").is_none() && lib.stand_ins("CUtexObject").is_none());
        assert_eq!(lib.records[0].fields.iter().map(|f| f.read_only).collect::<Vec<_>>(), [true, false]);
        // a name the header does not declare is an error, unless its range says it is absent
        let bad = "[read_only_fields]\n\"CUuuid.gone\" = \"x\"\n";
        let e = run(&mut lib, &ann(bad), None).unwrap_err().to_string();
        assert!(e.contains("a.toml:2") && e.contains("`CUuuid.gone`, which is no record field"), "{e}");
        run(&mut lib, &ann(&format!("{bad}[since]\n\"CUuuid.gone\" = \"13.0\"\n")), Some(12090)).unwrap();
    }

    #[test]
    fn buffers_follow_their_size_and_unfit_pointers_are_addresses() {
        let chars = Type::ptr(Type::prim(Prim::Char), false);
        let buffer = |len: &str| Role::OutBuffer { len: Some(len.into()), string: true, size_from: None, capacity: None };
        let mut size = param("size", Type::ptr(Type::prim(Prim::SizeT), false), Role::InOutRef);
        size.direction = Direction::InOut;
        let mut lib = library(
            "CUhostFn",
            vec![
                // allocated here, as long as the count says
                function(
                    "cuName",
                    vec![
                        param("name", chars.clone(), buffer("len")),
                        param("len", Type::prim(Prim::Int), Role::Length { of: "name".into() }),
                    ],
                ),
                // the caller's in/out size: the caller passes the buffer (no size link: an address)
                function("cuDump", vec![param("buffer", chars, buffer("size")), size]),
                // a role the C type cannot have (a reference to `void`)
                function("cuUnfit", vec![param("p", Type::ptr(Type::prim(Prim::Void), true), Role::InRef)]),
            ],
        );
        use PyConv::*;
        assert_eq!(convs(&mut lib, ""), vec![vec![OutBuffer, Int], vec![Ptr, InoutScalar], vec![Ptr]]);
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
        assert_eq!(convs(&mut lib, ""), vec![vec![InArray, InArrayOpt, Int], vec![OutList, Out]]);
    }

    #[test]
    fn enums_and_record_pointers_follow_the_python_convention() {
        use crate::ir::{Doc, Location, Names, RecordKind};
        use crate::passes::build::{input, record};
        let build = |kind: crate::ir::LibraryKind| {
            let rec = Type::named("R");
            let mut lib = library(
                "CUhostFn",
                vec![function(
                    "cuCopy",
                    vec![
                        param("attr", Type::named("E"), Role::Value),
                        param("n", Type::prim(Prim::Int), Role::Value),
                        input("p", Type::ptr(rec.clone(), true), Role::InRef, false),
                        input("q", Type::ptr(rec, true), Role::InRef, true),
                    ],
                )],
            );
            lib.kind = kind;
            lib.records.push(record("R", RecordKind::Struct, vec![]));
            lib.enums.push(crate::ir::Enum {
                name: "E".into(),
                tag: None,
                variants: vec![],
                is_flags: false,
                repr: Prim::UInt,
                doc: Doc::default(),
                location: Location::default(),
                names: Names::default(),
            });
            lib
        };
        use PyConv::*;
        // the tuple modules (cuda.bindings reads `.value` and passes NULL for None): an enum takes
        // members and integers only, a record pointer takes None
        assert_eq!(convs(&mut build(crate::profile::kind("driver")), ""), vec![vec![Enum, Int, RecordRefOpt, RecordRefOpt]]);
        assert_eq!(convs(&mut build(crate::profile::kind("runtime")), ""), vec![vec![Enum, Int, RecordRefOpt, RecordRefOpt]]);
        // the raising modules: enums are C ints (Cython converts them), None only where C allows NULL
        assert_eq!(convs(&mut build(crate::profile::kind("nvjitlink")), ""), vec![vec![Int, Int, RecordRef, RecordRefOpt]]);
    }

    #[test]
    fn keep_gil_marks_declared_functions_without_callbacks() {
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        let lib = || {
            let mut lib = library(
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
            );
            crate::passes::signature::run(&mut lib).unwrap();
            lib
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
