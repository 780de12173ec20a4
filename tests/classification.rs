//! Snapshot of the full classification table of the real headers: one line per function with
//! its ABI symbol, version, variants, final safety, return kind, whether Python keeps the GIL
//! across it, and each parameter's direction, role, the source that decided it and the kind
//! `passes::signature` made of it; plus rules every decision must keep (soundness of the typed
//! layer).
//! Headers come from `CUDAGEN_HEADERS_DIR` or the xtask cache `.cache/headers/12.9`.

use cudagen_generator::ir::{
    Api, BufferSize, Count, Counted, DecidedBy, Direction, Function, ParamKind, RecordAccess, ReturnKind, Role, SizeFrom, Type,
};
use std::path::Path;

fn role(r: &Role) -> String {
    match r {
        Role::InArray { len } | Role::OutArray { len } => {
            format!(
                "{}[{}]",
                if matches!(r, Role::InArray { .. }) { "in_array" } else { "out_array" },
                len.as_deref().unwrap_or("?")
            )
        }
        Role::OutBuffer { len, size_from, .. } => {
            format!("out_buffer[{}]", len.as_deref().or(size_from.as_deref()).unwrap_or("?"))
        }
        Role::Length { of } => format!("len({of})"),
        Role::SelectedValues { selectors, sizes } => match sizes {
            Some(s) => format!("selected_by({selectors}[])[{s}]"),
            None => format!("selected_by({selectors}[])"),
        },
        Role::SelectedValue { selector, len } => match len {
            Some(l) => format!("selected_by({selector})[{l}]"),
            None => format!("selected_by({selector})"),
        },
        other => serde_json::to_value(other).unwrap()["role"].as_str().unwrap().to_string(),
    }
}

/// `[n]`: a count computed from the slice; `[*n]`: one the caller passes; `[?]`: none.
fn count(c: &Count) -> String {
    match c {
        Count::Computed { param } => format!("[{param}]"),
        Count::Passed { param } => format!("[*{param}]"),
        Count::None => "[?]".into(),
    }
}

fn nullable(n: bool) -> &'static str {
    if n {
        "?"
    } else {
        ""
    }
}

/// The kind of a parameter with its links, after `=`.
fn kind(k: &ParamKind) -> String {
    match k {
        ParamKind::Callback { callback } => {
            format!("callback({})", serde_json::to_value(callback.kind).unwrap().as_str().unwrap())
        }
        ParamKind::UserData { carries } => format!("user_data({})", carries.as_deref().unwrap_or("-")),
        ParamKind::Address { size: Some(s) } => {
            let from = match &s.from {
                SizeFrom::Param(p) => p.clone(),
                SizeFrom::Function(f) => format!("{f}()"),
            };
            format!("address[{from}{}]", if s.writes { ",w" } else { "" })
        }
        ParamKind::Unfit { why } => format!("unfit({})", serde_json::to_value(why).unwrap().as_str().unwrap()),
        ParamKind::InRef { nullable: n, .. } => format!("in_ref{}", nullable(*n)),
        ParamKind::InOutRef { nullable: n, .. } => format!("in_out_ref{}", nullable(*n)),
        ParamKind::CstrIn { nullable: n, .. } => format!("cstr_in{}", nullable(*n)),
        ParamKind::InArray { nullable: n, count: c, .. } => format!("in_array{}{}", count(c), nullable(*n)),
        ParamKind::InBytes { nullable: n, count: c } => format!("in_bytes{}{}", count(c), nullable(*n)),
        ParamKind::CstrArray { nullable: n, count: c, .. } => format!("cstr_array{}{}", count(c), nullable(*n)),
        ParamKind::OutArray { nullable: n, count: c, reads, .. } => {
            format!("{}{}{}", if *reads { "in_out_array" } else { "out_array" }, count(c), nullable(*n))
        }
        ParamKind::OutBuffer { size, alloc, .. } => match size {
            BufferSize::Query { query } => format!("out_buffer[{}()]", query.function),
            BufferSize::BadQuery { function, .. } => format!("out_buffer[{function}()!,{alloc}]"),
            BufferSize::Count { count: c } => format!("out_buffer{}", count(c)),
            BufferSize::Capacity => format!("out_buffer[{alloc}]"),
            BufferSize::Unbounded => "out_buffer[?]".into(),
        },
        ParamKind::Length { counts } => {
            let names: Vec<&str> = counts
                .iter()
                .map(|c| match c {
                    Counted::Slice(p) | Counted::OptionalSlice(p) | Counted::Buffer(p) => p.as_str(),
                })
                .collect();
            format!("length({})", names.join(","))
        }
        ParamKind::SelectedIn { table, .. } => format!("selected_in({table})"),
        ParamKind::SelectedOut { table, .. } => format!("selected_out({table})"),
        ParamKind::SelectedLen { by_pointer, .. } => format!("selected_len{}", if *by_pointer { "*" } else { "" }),
        ParamKind::SelectedList { table, .. } => format!("selected_list({table})"),
        other => serde_json::to_value(other).unwrap()["kind"].as_str().unwrap().to_string(),
    }
}

fn line(f: &Function) -> String {
    let version = f.version.map(|v| v.to_string()).unwrap_or_else(|| "?".into());
    let variants: Vec<String> = f.variants.iter().map(|v| format!("+{}@{}", v.symbol, v.version.unwrap_or(0))).collect();
    let params: Vec<String> = f
        .params
        .iter()
        .map(|p| {
            // `py=0`: the Python argument's default (`passes::python`, a trailing capacity)
            let default = p.py_default.map(|d| format!(" py={d}")).unwrap_or_default();
            format!(
                "{}:{:?}/{}{}@{}={}{default}",
                p.name,
                p.direction,
                role(&p.role),
                nullable(p.nullable),
                by(p.decided_by),
                kind(&p.kind)
            )
        })
        .collect();
    let why: Vec<String> = f.unsafe_because.iter().map(|u| u.short()).collect();
    let safety = if f.needs_unsafe { format!("unsafe[{}] ", why.join(",")) } else { "safe ".into() };
    let ret = match f.ret_kind {
        ReturnKind::Status => String::new(),
        other => format!("returns {} ", serde_json::to_value(other).unwrap().as_str().unwrap()),
    };
    let gil = if f.keeps_gil.is_some() { "keeps-gil@ann " } else { "" };
    format!("{} -> {}@{}{} {safety}{ret}{gil}({})", f.name, f.symbol, version, variants.concat(), params.join(", "))
}

use cudagen_tests::{by, real_api_12_9 as api_12_9};

#[test]
fn classification_table_12_9() {
    let Some(api) = api_12_9() else { return };
    let mut table = String::new();
    for lib in &api.libraries {
        for f in &lib.functions {
            table.push_str(&line(f));
            table.push('\n');
        }
    }
    let driver = api.libraries.iter().find(|l| l.kind.module() == "driver").unwrap();
    let nvrtc = api.libraries.iter().find(|l| l.kind.module() == "nvrtc").unwrap();
    assert_eq!(driver.functions.len(), 473);
    assert_eq!(nvrtc.functions.len(), 26);
    insta::assert_snapshot!("classification_12_9", table);
}

/// The counted pointer fields of the real headers (`fields` pass): `Record.field -> count@by`,
/// and `-` where no sibling counts the elements.
#[test]
fn counted_fields_12_9() {
    let Some(api) = api_12_9() else { return };
    let mut table = String::new();
    for lib in &api.libraries {
        for r in &lib.records {
            for f in r.fields.iter().filter(|f| cudagen_generator::passes::fields::is_element_pointer(lib, &f.ty)) {
                let count = f.count.as_ref().map_or("-".to_string(), |c| format!("{}@{}", c.field, by(c.decided_by)));
                table.push_str(&format!("{}.{} -> {count}\n", r.name, f.name));
            }
        }
    }
    insta::assert_snapshot!("counted_fields_12_9", table);
}

/// The fields whose records Python hands out as copies (`fields` pass: the fixed arrays of
/// records), as cuda.bindings reads them; every other field holding records hands out views.
#[test]
fn copied_record_fields_12_9() {
    let Some(api) = api_12_9() else { return };
    let copied: Vec<String> = api
        .libraries
        .iter()
        .flat_map(|l| l.records.iter().map(move |r| (l.kind.module(), r)))
        .flat_map(|(m, r)| {
            r.fields.iter().filter(|f| f.access == Some(RecordAccess::Copy)).map(move |f| format!("{m}.{}.{}", r.name, f.name))
        })
        .collect();
    assert_eq!(copied, ["runtime.cudaEglFrame_frame.pPitch", "runtime.cudaEglFrame.planeDesc"]);
}

/// Every parameter of every function of the real headers, with its function.
fn params(api: &Api) -> impl Iterator<Item = (&Function, &cudagen_generator::ir::Param)> {
    api.libraries.iter().flat_map(|l| &l.functions).flat_map(|f| f.params.iter().map(move |p| (f, p)))
}

#[test]
fn a_const_pointee_is_never_an_output() {
    let Some(api) = api_12_9() else { return };
    let bad: Vec<String> = params(&api)
        .filter(|(_, p)| matches!(p.ty, Type::Pointer { is_const: true, .. }))
        .filter(|(_, p)| {
            p.direction != Direction::In
                || matches!(p.role, Role::OutValue | Role::OutArray { .. } | Role::OutBuffer { .. } | Role::CStrOut)
        })
        .map(|(f, p)| format!("{}.{}", f.name, p.name))
        .collect();
    assert!(bad.is_empty(), "const pointees classified as outputs: {bad:?}");
}

/// Parameters the callee reads: the typed layer must pass initialised memory (never a
/// `MaybeUninit` out-value) to them.
#[test]
fn read_parameters_are_never_uninitialised_outputs() {
    let Some(api) = api_12_9() else { return };
    let is_set = |f: &Function| f.name.contains("Set") && !f.name.contains("Get");
    let mut bad = Vec::new();
    for (f, p) in params(&api) {
        let write_only = matches!(p.role, Role::OutValue | Role::OutArray { .. } | Role::OutBuffer { .. });
        // A set function's pointers are read unless its doc says one is returned.
        if is_set(f) && p.decided_by != DecidedBy::Doc && (write_only || p.direction == Direction::Out) {
            bad.push(format!("{}.{} (set function)", f.name, p.name));
        }
        // A count the caller passes with an array, and in/out values, are read.
        if p.direction == Direction::InOut && matches!(p.role, Role::OutValue) {
            bad.push(format!("{}.{} (in/out as out-value)", f.name, p.name));
        }
        // Selected values the callee reads (set functions) are never out.
        if matches!(p.role, Role::SelectedValue { .. }) && is_set(f) && p.direction != Direction::In {
            bad.push(format!("{}.{} (selected value of a set function)", f.name, p.name));
        }
        // An array with a counted length is input unless the doc or an annotation says filled.
        if let Role::OutArray { len: Some(_) } = &p.role {
            if p.decided_by == DecidedBy::Heuristic {
                bad.push(format!("{}.{} (counted array guessed as output)", f.name, p.name));
            }
        }
    }
    for (name, param) in [
        ("cuTexRefSetBorderColor", "pBorderColor"),
        ("cuGraphicsMapResources", "resources"),
        ("cuGraphicsUnmapResources", "resources"),
        ("cuGraphKernelNodeSetAttribute", "value"),
        ("cuCoredumpSetAttribute", "size"),
        ("cuThreadExchangeStreamCaptureMode", "mode"),
        ("cuLogsDumpToMemory", "iterator"),
        ("cuLogsDumpToMemory", "size"),
        ("cuLogsDumpToFile", "iterator"),
    ] {
        let f = api.libraries.iter().find_map(|l| l.function(name)).unwrap();
        let p = f.param(param).unwrap();
        if p.direction == Direction::Out || matches!(p.role, Role::OutValue | Role::OutArray { .. }) {
            bad.push(format!("{name}.{param} ({:?}/{:?})", p.direction, p.role));
        }
    }
    assert!(bad.is_empty(), "read parameters passed as uninitialised outputs: {bad:?}");
}

/// No safe typed fn ends a resource or acts through an address whose validity is the caller's
/// promise: every ender is `unsafe`, and so is every call of the list; calls that only
/// ask about an address, and plain calls on owned handles, stay safe.
#[test]
fn enders_and_raw_addresses_are_unsafe() {
    use cudagen_generator::ir::{FnOwnership, Unsafety};
    let Some(api) = api_12_9() else { return };
    let all = || api.libraries.iter().flat_map(|l| &l.functions);
    let safe_enders: Vec<&str> = all()
        .filter(|f| matches!(f.ownership, Some(FnOwnership::Ends { .. })) && !f.needs_unsafe)
        .map(|f| f.name.as_str())
        .collect();
    assert!(safe_enders.is_empty(), "safe enders: {safe_enders:?}");
    assert!(all().all(|f| f.needs_unsafe != f.unsafe_because.is_empty()));
    let find = |name: &str| all().find(|f| f.name == name).unwrap_or_else(|| panic!("{name}"));
    let why = |name: &str| find(name).unsafe_because.iter().map(Unsafety::short).collect::<Vec<_>>().join(",");
    for (name, reason) in [
        ("cuStreamDestroy", "ends(Stream)"),
        ("cuMemFree", "device(dptr),ends(DeviceMemory)"),
        ("cuMemFreeAsync", "device(dptr),ends(AsyncDeviceMemory)"),
        ("cuModuleUnload", "ends(Module)"),
        ("nvrtcDestroyProgram", "ends(Program)"),
        ("cuDevicePrimaryCtxReset", "ends(excused)"),
        ("cuStreamWriteValue32", "device(addr)"),
        ("cuStreamWaitValue64", "device(addr)"),
        ("cuMemsetD8Async", "device(dstDevice)"),
        ("cuMemcpyDtoD", "device(dstDevice),device(srcDevice)"),
        ("cuMemcpyBatchAsync", "device(dsts),device(srcs)"),
        ("cuMemcpy2D", "record(pCopy.srcHost)"),
        ("cuStreamBatchMemOp", "record(paramArray.waitValue.address)"),
        ("cuGraphAddKernelNode", "record(nodeParams.kernelParams)"),
        ("cuGraphAddMemsetNode", "record(memsetParams.dst)"),
        ("cuGraphAddHostNode", "record(nodeParams.fn)"),
        ("cuGraphAddNode", "record(nodeParams.kernel.kernelParams)"),
        ("cuGraphAddMemFreeNode", "device(dptr)"),
    ] {
        assert_eq!(why(name), reason, "{name}");
    }
    for name in [
        "cuPointerGetAttribute",
        "cuMemGetAddressRange",
        "cuDeviceGraphMemTrim",
        "cuStreamSynchronize",
        "cuMemAlloc",
        "cuLaunchHostFunc",
    ] {
        let f = find(name);
        assert_eq!(f.needs_unsafe, name == "cuLaunchHostFunc", "{name}: {:?}", f.unsafe_because);
    }
}

/// `pub unsafe fn` in the generated Rust crate is exactly the IR's `needs_unsafe` set.
#[test]
fn generated_unsafe_fns_are_the_irs() {
    let Some(api) = api_12_9() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for lib in &api.libraries {
        let text = std::fs::read_to_string(root.join(format!("generated/rust/src/cuda12/{}/mod.rs", lib.kind.module()))).unwrap();
        let generated: std::collections::BTreeSet<&str> =
            text.lines().filter_map(|l| l.strip_prefix("pub unsafe fn ")).map(|l| l.split(['(', '<']).next().unwrap()).collect();
        let ir: std::collections::BTreeSet<&str> =
            lib.functions.iter().filter(|f| f.needs_unsafe).map(|f| f.names.rust.as_str()).collect();
        assert_eq!(generated, ir, "{}: unsafe fns of generated/rust differ from the IR", lib.kind.module());
    }
}

/// Every byte input the callee reads for a by-value size (`ParamKind::InBytes`) is checked
/// against it in Python (`passes::sizes`): a larger size than the buffer, or None with a size,
/// would read past it. In the 12.9 headers these are nvJitLink's and NVVM's inputs.
#[test]
fn byte_inputs_are_bounded_by_their_size() {
    use cudagen_generator::ir::SizeLink;
    let Some(api) = api_12_9() else { return };
    let mut linked = Vec::new();
    for lib in &api.libraries {
        for f in &lib.functions {
            for p in f.params.iter().filter(|p| matches!(p.kind, ParamKind::InBytes { .. })) {
                let ParamKind::InBytes { count: Count::Computed { param }, .. } = &p.kind else {
                    panic!("{}.{}: a byte input without its size: {:?}", f.name, p.name, p.kind)
                };
                assert_eq!(
                    p.size,
                    Some(SizeLink { from: SizeFrom::Param(param.clone()), writes: false }),
                    "{}.{}",
                    f.name,
                    p.name
                );
                linked.push(format!("{}.{}<={param}", f.name, p.name));
            }
        }
    }
    assert_eq!(
        linked,
        ["nvJitLinkAddData.data<=size", "nvvmAddModuleToProgram.buffer<=size", "nvvmLazyAddModuleToProgram.buffer<=size"]
    );
}

/// Each parameter's Python conversion follows from its kind (with the value kind of its C type):
/// the kinds carry what the Python surface needs, so `passes::python` can become a table over
/// them. Only `kernelParams` is still told by name (in `passes::python`).
#[test]
fn python_conversions_follow_the_kinds() {
    use cudagen_generator::ir::{Library, Param, PyConv, Unfit, ValueKind};
    use cudagen_generator::passes::python::{typedef_class, value_kind};
    let Some(api) = api_12_9() else { return };
    // the tuple modules' enums take members and integers only, their record pointers None
    let tuple = |lib: &Library| lib.profile().python.member_enums();
    // an integer or `void *` alias with a class of its own (`cuuint32_t`, `EGLImageKHR`) takes that class
    let classed = |lib: &Library, ty: &Type| match ty {
        Type::Named { name } => lib.typedef(name).and_then(|t| typedef_class(lib, t)).is_some(),
        _ => false,
    };
    let by_value = |lib: &Library, ty: &Type| match value_kind(lib, ty) {
        ValueKind::Enum if tuple(lib) => PyConv::Enum,
        ValueKind::Int if classed(lib, ty) => PyConv::TypedefInt,
        ValueKind::Int | ValueKind::Enum => PyConv::Int,
        ValueKind::Float => PyConv::Float,
        ValueKind::Handle => PyConv::Handle,
        ValueKind::Record => PyConv::RecordVal,
        ValueKind::Ptr if classed(lib, ty) => PyConv::TypedefPtr,
        _ => PyConv::Ptr,
    };
    let by_ref = |lib: &Library, ty: &Type, inout: bool, nullable: bool| match (value_kind(lib, ty), lib.resolve(ty)) {
        (ValueKind::Record, _) if nullable || lib.profile().python.none_records() => PyConv::RecordRefOpt,
        (ValueKind::Record, _) => PyConv::RecordRef,
        (ValueKind::Int | ValueKind::Enum, _) if inout => PyConv::InoutScalar,
        (ValueKind::Handle, cudagen_generator::ir::Resolved::ScalarHandle(..)) if inout => PyConv::InoutScalar,
        (ValueKind::Handle, _) => PyConv::HandleRef,
        _ => PyConv::Ptr,
    };
    let secondary = |f: &Function, count: &Count, name: &str| {
        let counts = count.param().and_then(|c| f.param(c)).map(|c| &c.kind);
        matches!(counts, Some(ParamKind::Length { counts }) if counts.first().is_some_and(|c| !matches!(c, Counted::Slice(n) | Counted::OptionalSlice(n) if n == name)))
    };
    let expected = |lib: &Library, f: &Function, p: &Param| match &p.kind {
        ParamKind::SelectedLen { by_pointer: true, .. } => PyConv::SelectedSize,
        ParamKind::SelectedIn { .. } => PyConv::SelectedIn,
        ParamKind::SelectedOut { .. } => PyConv::SelectedOut,
        ParamKind::SelectedList { .. } => PyConv::SelectedList,
        ParamKind::Value
        | ParamKind::Length { .. }
        | ParamKind::SelectedLen { .. }
        | ParamKind::Unfit { why: Unfit::NothingCounted } => by_value(lib, &p.ty),
        ParamKind::InRef { pointee, .. } => by_ref(lib, &pointee.ty, false, p.nullable),
        ParamKind::InOutRef { pointee, .. } => by_ref(lib, &pointee.ty, true, p.nullable),
        // An array the library owns, counted by another output: a list in Python.
        ParamKind::OutValue { .. } if p.counted_by.is_some() => PyConv::OutList,
        ParamKind::OutValue { .. } => PyConv::Out,
        ParamKind::CstrIn { .. } => PyConv::Cstr,
        ParamKind::CstrOut => PyConv::CstrOut,
        // Per-element data beside the array its count counts first (`dependencyData`): None is NULL.
        ParamKind::InArray { nullable: true, count, .. } if secondary(f, count, &p.name) => PyConv::InArrayOpt,
        ParamKind::InArray { .. } | ParamKind::CstrArray { .. } | ParamKind::OutArray { reads: true, .. } => PyConv::InArray,
        ParamKind::OutArray { .. } => PyConv::OutArray,
        // Bytes the callee reads: an address or buffer beside its size, as cuda.bindings takes
        // them, checked against that size where `passes::sizes` linked it.
        ParamKind::InBytes { .. } if p.size.is_some() => PyConv::Buffer,
        ParamKind::InBytes { .. } => PyConv::Ptr,
        // Sized by the caller (a size query, an in/out count): a buffer checked against the size the IR knows.
        ParamKind::OutBuffer {
            size: BufferSize::Query { .. } | BufferSize::BadQuery { .. } | BufferSize::Count { count: Count::Passed { .. } },
            ..
        } => {
            if p.size.is_some() {
                PyConv::Buffer
            } else {
                PyConv::Ptr
            }
        }
        ParamKind::OutBuffer { .. } => PyConv::OutBuffer,
        ParamKind::Address { .. } if p.name == "kernelParams" => PyConv::KernelParams,
        ParamKind::Address { size: Some(_) } => PyConv::Buffer,
        ParamKind::Address { size: None } | ParamKind::Unfit { .. } => PyConv::Ptr,
        ParamKind::UserData { carries: Some(_) } => PyConv::UserdataPaired,
        ParamKind::UserData { carries: None } => PyConv::Ptr,
        ParamKind::Callback { .. } => PyConv::Callback,
    };
    let mut checked = 0;
    for lib in &api.libraries {
        for f in &lib.functions {
            for p in &f.params {
                assert_eq!(Some(expected(lib, f, p)), p.python, "{}.{}: {:?}", f.name, p.name, p.kind);
                checked += 1;
            }
        }
    }
    assert!(checked > 1400, "{checked}");
}

/// Issue 34 item 3: a safe typed fn takes an address only as a handle of the device-pointer kind
/// (`CUdeviceptr`, whose uses `passes::signature` makes `unsafe`: `device(p)`), a pointer, or a
/// record the record rule reads, never as a plain integer: no by-value input of a safe function
/// that resolves to an integer is named as an address. The offsets and sizes that stay (into
/// arrays and allocation handles the driver bounds) are named so.
#[test]
fn safe_fns_take_no_address_as_a_plain_integer() {
    use cudagen_generator::ir::Resolved;
    let Some(api) = api_12_9() else { return };
    let address = |n: &str| {
        let n = n.to_ascii_lowercase();
        ["ptr", "addr", "address", "base"].iter().any(|w| n.contains(w))
    };
    let mut seen = 0;
    let mut bad = Vec::new();
    for lib in &api.libraries {
        for f in lib.functions.iter().filter(|f| !f.needs_unsafe) {
            for p in &f.params {
                if let Resolved::Prim(prim) = lib.resolve(&p.ty) {
                    seen += 1;
                    if p.direction == Direction::In && prim.is_integer() && address(&p.name) {
                        bad.push(format!("{}.{}", f.name, p.name));
                    }
                }
            }
        }
    }
    assert!(seen > 200, "only {seen} integer parameters of safe functions seen");
    assert!(bad.is_empty(), "safe functions taking an address as a plain integer: {bad:?}");
}
