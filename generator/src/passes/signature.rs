//! The signature pass: one [`ParamKind`] per parameter and one [`ReturnKind`] per function, with
//! every link the renderers need (counts, selector tables, size queries, callbacks, why a
//! parameter stays raw), how the C shim exports it, how it returns and whether its typed binding
//! must be `unsafe`. Renderers match on these kinds and decide nothing themselves.
//!
//! A kind follows the role (`passes::params`) where the role fits the C type; where it does not,
//! the parameter is [`ParamKind::Unfit`] and stays raw.
//!
//! A typed binding is `unsafe` ([`Function::unsafe_because`], one [`Unsafety`] per parameter)
//! when some parameter's validity is the caller's promise ([`ParamKind::caller_promise`]), when
//! the call acts on device memory through a device address it reads (the handle type the
//! tracer's `[trace.handles]` class `device_ptr` names: `CUdeviceptr`), by value or in an array
//! or value it points to, unless it only asks about the address (see [`only_asks`]), or when it
//! reads a record that holds an address or a function pointer in some field, found through
//! nested records. `passes::ownership` adds the enders.

use crate::diag::{Error, Result};
use crate::ir::*;

pub fn run(lib: &mut Library) -> Result<()> {
    for i in 0..lib.functions.len() {
        let f = &lib.functions[i];
        let kinds = f.params.iter().map(|p| param_kind(lib, f, p)).collect::<Result<Vec<_>>>()?;
        let (ret_kind, export) = (return_kind(lib, f), export(lib, f));
        let f = &mut lib.functions[i];
        for (p, kind) in f.params.iter_mut().zip(kinds) {
            p.kind = kind;
        }
        (f.ret_kind, f.export) = (ret_kind, export);
    }
    for i in 0..lib.functions.len() {
        let reasons = unsafety(lib, &lib.functions[i]);
        let f = &mut lib.functions[i];
        (f.needs_unsafe, f.unsafe_because) = (false, Vec::new());
        for why in reasons {
            f.mark_unsafe(why);
        }
    }
    Ok(())
}

/// Why the typed binding of `f` must be `unsafe`, from its parameters' kinds and C types.
fn unsafety(lib: &Library, f: &Function) -> Vec<Unsafety> {
    let asks = only_asks(lib, f);
    let mut out = Vec::new();
    for p in &f.params {
        let param = p.name.clone();
        if p.kind.caller_promise() {
            out.push(Unsafety::Promise { param });
        } else if let Some(t) = read_value(p) {
            if is_device_address(lib, t) {
                if !asks {
                    out.push(Unsafety::DeviceAddress { param });
                }
            } else if let Some(field) = address_in(lib, t) {
                out.push(if field.is_empty() { Unsafety::Promise { param } } else { Unsafety::Record { param, field } });
            }
        }
    }
    out
}

/// The type of what the callee reads through `p`: the value itself, the value it points to, or
/// the elements of an array it reads.
fn read_value(p: &Param) -> Option<&Type> {
    match &p.kind {
        ParamKind::Value => Some(&p.ty),
        ParamKind::InRef { pointee, .. } | ParamKind::InOutRef { pointee, .. } => Some(&pointee.ty),
        ParamKind::InArray { elem, .. } | ParamKind::OutArray { elem, reads: true, .. } => Some(&elem.ty),
        _ => None,
    }
}

/// A device address: a handle type whose `[trace.handles]` class is `device_ptr`.
fn is_device_address(lib: &Library, ty: &Type) -> bool {
    matches!(lib.resolve(ty), Resolved::ScalarHandle(t, _) if lib.trace.handles.get(&t.name) == Some(&TraceClass::DevicePtr))
}

/// Where a value of `ty` holds an address (device or host) or a function pointer: `""` for the
/// value itself, else the path of the field through nested records and arrays (`waitValue.address`).
fn address_in(lib: &Library, ty: &Type) -> Option<String> {
    match lib.resolve(ty) {
        Resolved::Pointer { .. } | Resolved::Callback(_) | Resolved::FnPtr => Some(String::new()),
        Resolved::ScalarHandle(..) if is_device_address(lib, ty) => Some(String::new()),
        Resolved::Array { elem, .. } => address_in(lib, elem),
        Resolved::Record(r) => r.fields.iter().find_map(|fd| {
            let rest = address_in(lib, &fd.ty)?;
            Some(match (fd.anonymous, rest.is_empty()) {
                (true, _) => rest,
                (false, true) => fd.name.clone(),
                (false, false) => format!("{}.{rest}", fd.name),
            })
        }),
        _ => None,
    }
}

/// `f` only asks about the device addresses it reads: it returns something through a parameter,
/// and everything else it reads is a device address, a number, an enum or a record of those (no
/// handle it could act on: `cuPointerGetAttribute`, `cuMemGetAddressRange`, but not
/// `cuTexRefSetAddress`, which binds a texture reference to the memory).
fn only_asks(lib: &Library, f: &Function) -> bool {
    let returns = f.params.iter().any(|p| {
        matches!(
            p.kind,
            ParamKind::OutValue { .. }
                | ParamKind::OutArray { .. }
                | ParamKind::OutBuffer { .. }
                | ParamKind::SelectedOut { .. }
                | ParamKind::CstrOut
        )
    });
    let plain = |t: &Type| match lib.resolve(t) {
        Resolved::Prim(_) | Resolved::Enum(_) => true,
        Resolved::Record(_) => address_in(lib, t).is_none(),
        _ => is_device_address(lib, t),
    };
    returns && f.params.iter().filter_map(read_value).all(plain)
}

/// The kind of `p`: its role where the role fits its C type.
fn param_kind(lib: &Library, f: &Function, p: &Param) -> Result<ParamKind> {
    let ptr = pointee(p);
    Ok(match (&p.role, ptr) {
        (Role::SelectedValue { selector, .. }, Some(t)) => selected(lib, f, p, selector, t.is_const)?,
        (Role::Length { of }, _) if is_selected(f, of) => {
            ParamKind::SelectedLen { of: of.clone(), by_pointer: matches!(p.ty, Type::Pointer { .. }) }
        }
        (Role::Value, _) if p.ty.pointee().is_none() => ParamKind::Value,
        (Role::Value | Role::HostPtr | Role::Opaque, _) => ParamKind::Address { size: p.size.clone() },
        (Role::Callback, _) => ParamKind::Callback { callback: p.callback.clone().unwrap_or_else(raw_callback) },
        (Role::UserData, _) => ParamKind::UserData { carries: carried_by(f, p) },
        (Role::SelectedValues { selectors, sizes }, _) => {
            ParamKind::SelectedList { selectors: selectors.clone(), table: table(lib, f, selectors, true)?, sizes: sizes.clone() }
        }
        (Role::InRef, Some(t)) if !t.ty.is_void() => ParamKind::InRef { pointee: t, nullable: p.nullable },
        (Role::InOutRef, Some(t)) if !t.ty.is_void() => ParamKind::InOutRef { pointee: t, nullable: p.nullable },
        (Role::OutValue, Some(t)) if !t.ty.is_void() => ParamKind::OutValue { pointee: t, untyped: false },
        (Role::OutValue, Some(Pointee { is_const: false, .. })) => match &p.written {
            Some(w) => ParamKind::OutValue { pointee: Pointee { ty: w.clone(), is_const: false }, untyped: true },
            None => ParamKind::Unfit { why: Unfit::RoleType },
        },
        (Role::CStrIn, Some(t)) if t.ty.is_char() => ParamKind::CstrIn { nullable: p.nullable, is_const: t.is_const },
        (Role::CStrOut, Some(t)) if t.ty.pointee().is_some_and(|(c, _)| c.is_char()) => ParamKind::CstrOut,
        (Role::InArray { len }, Some(t)) if is_in_bytes(f, &t, len) => {
            ParamKind::InBytes { nullable: p.nullable, count: count(f, len) }
        }
        (Role::InArray { len }, Some(t)) if !t.ty.is_void() => in_array(f, p, t, len),
        (Role::OutArray { len }, Some(t)) if !t.ty.is_void() => {
            ParamKind::OutArray { elem: t, nullable: p.nullable, count: count(f, len), reads: p.direction == Direction::InOut }
        }
        (Role::OutBuffer { len, string, size_from, capacity }, Some(t)) if !t.is_const && (t.ty.is_void() || t.ty.is_byte()) => {
            let size = buffer_size(lib, f, len, size_from.as_deref(), *capacity);
            ParamKind::OutBuffer { string: *string, alloc: capacity.unwrap_or(256).max(1), size }
        }
        (Role::Length { .. }, _) => length(f, p),
        _ => ParamKind::Unfit { why: Unfit::RoleType },
    })
}

/// The pointee of a pointer parameter.
fn pointee(p: &Param) -> Option<Pointee> {
    p.ty.pointee().map(|(ty, is_const)| Pointee { ty: ty.clone(), is_const })
}

/// A `const` untyped or byte input array whose count parameter gives its bytes: a byte slice.
fn is_in_bytes(f: &Function, t: &Pointee, len: &Option<String>) -> bool {
    t.is_const && (t.ty.is_void() || t.ty.is_byte()) && matches!(count(f, len), Count::Computed { .. })
}

fn raw_callback() -> CallbackUse {
    CallbackUse { kind: CallbackKind::Raw, user_data: None, kept_by: None }
}

/// The callback parameter whose callable user-data parameter `p` carries.
fn carried_by(f: &Function, p: &Param) -> Option<String> {
    f.params.iter().find(|q| q.callback.as_ref().is_some_and(|u| u.user_data.as_deref() == Some(&p.name))).map(|q| q.name.clone())
}

fn is_selected(f: &Function, name: &str) -> bool {
    f.param(name).is_some_and(|q| matches!(q.role, Role::SelectedValue { .. }))
}

fn selected(lib: &Library, f: &Function, p: &Param, selector: &str, is_const: bool) -> Result<ParamKind> {
    let (selector, table) = (selector.to_string(), table(lib, f, selector, false)?);
    Ok(match p.direction {
        Direction::In => ParamKind::SelectedIn { selector, table, is_const },
        _ => ParamKind::SelectedOut { selector, table, is_const },
    })
}

/// The enum (with a member type table) of the selector parameter `selector` (an enum array when
/// `array`); `passes::params` checked that there is one.
fn table(lib: &Library, f: &Function, selector: &str, array: bool) -> Result<String> {
    let ty = f.param(selector).and_then(|s| if array { s.ty.pointee().map(|(t, _)| t) } else { Some(&s.ty) });
    match ty.map(|t| lib.resolve(t)) {
        Some(Resolved::Enum(e)) if lib.value_table(&e.name).is_some() => Ok(e.name.clone()),
        _ => {
            Err(Error::at(f.location.clone(), format!("passes::signature: `{}.{selector}` selects from no value table", f.name)))
        }
    }
}

/// The count parameter `len` of an array or buffer of `f`.
fn count(f: &Function, len: &Option<String>) -> Count {
    match len.as_deref().and_then(|l| f.param(l)) {
        Some(q) if matches!(q.role, Role::Length { .. }) => Count::Computed { param: q.name.clone() },
        Some(q) => Count::Passed { param: q.name.clone() },
        None => Count::None,
    }
}

fn in_array(f: &Function, p: &Param, t: Pointee, len: &Option<String>) -> ParamKind {
    let (nullable, count) = (p.nullable, count(f, len));
    match &t.ty {
        Type::Pointer { pointee, is_const: true } if pointee.is_char() => {
            ParamKind::CstrArray { nullable, is_const: t.is_const, count }
        }
        _ => ParamKind::InArray { elem: t, nullable, count },
    }
}

fn buffer_size(lib: &Library, f: &Function, len: &Option<String>, size_from: Option<&str>, capacity: Option<u32>) -> BufferSize {
    match (size_from, len, capacity) {
        (Some(function), ..) => match size_query(lib, f, function) {
            Ok(query) => BufferSize::Query { query },
            Err(why) => {
                let symbol = lib.function(function).map_or(function, |g| &g.symbol).to_string();
                BufferSize::BadQuery { function: function.to_string(), symbol, why }
            }
        },
        (None, Some(_), _) => BufferSize::Count { count: count(f, len) },
        (None, None, Some(_)) => BufferSize::Capacity,
        (None, None, None) => BufferSize::Unbounded,
    }
}

/// The size query of a two-call pair: every parameter of the size function is either its one
/// out-value (the size) or a same-named by-value parameter of `f`.
fn size_query(lib: &Library, f: &Function, size_fn: &str) -> std::result::Result<SizeQuery, String> {
    let s = lib.function(size_fn).ok_or_else(|| format!("size function {size_fn} not found"))?;
    let mut size_ty = None;
    let mut args = Vec::new();
    for q in &s.params {
        match (&q.role, q.ty.pointee()) {
            (Role::OutValue, Some((t, _))) if size_ty.is_none() => {
                size_ty = Some(t.clone());
                args.push(QueryArg::Size);
            }
            _ => match f.param(&q.name).filter(|p| matches!(p.role, Role::Value) && p.ty == q.ty) {
                Some(p) => args.push(QueryArg::Param(p.name.clone())),
                None => return Err(format!("{size_fn} parameter {} has no match in {}", q.name, f.name)),
            },
        }
    }
    let size_ty = size_ty.ok_or_else(|| format!("{size_fn} returns no size"))?;
    if !matches!(s.ret, Type::Named { .. }) || !lib.is_status(&s.ret) {
        return Err(format!("{size_fn} does not return a status"));
    }
    Ok(SizeQuery { function: s.name.clone(), symbol: s.symbol.clone(), size_ty, args })
}

/// A by-value count: what it counts (slices with an element type, allocated buffers), else
/// the caller passes it.
fn length(f: &Function, p: &Param) -> ParamKind {
    let mut counts = Vec::new();
    for q in &f.params {
        match &q.role {
            Role::InArray { len: Some(l) } | Role::OutArray { len: Some(l) }
                if *l == p.name
                    && q.ty
                        .pointee()
                        .is_some_and(|(t, is_const)| !t.is_void() || (is_const && matches!(q.role, Role::InArray { .. }))) =>
            {
                counts.push(if q.nullable { Counted::OptionalSlice(q.name.clone()) } else { Counted::Slice(q.name.clone()) });
            }
            Role::OutBuffer { len: Some(l), .. } if *l == p.name => counts.push(Counted::Buffer(q.name.clone())),
            _ => {}
        }
    }
    if counts.is_empty() || !matches!(p.ty, Type::Prim { .. } | Type::Named { .. }) {
        return ParamKind::Unfit { why: Unfit::NothingCounted };
    }
    ParamKind::Length { counts }
}

/// What `f` returns: the status enum spelled as such (with the codes to return on failure), a
/// static C string, another pointer, another value, nothing.
fn return_kind(lib: &Library, f: &Function) -> ReturnKind {
    match &f.ret {
        Type::Prim { prim: Prim::Void } => ReturnKind::Void,
        Type::Named { name } if lib.status_enum.as_ref() == Some(name) && lib.status_codes.is_some() => ReturnKind::Status,
        Type::Pointer { pointee, is_const: true } if pointee.is_char() => ReturnKind::StaticCstr,
        Type::Pointer { .. } => ReturnKind::Pointer,
        _ => ReturnKind::Value,
    }
}

/// The library's entry resolver (profile `resolver`) is answered by the C shim itself.
fn export(lib: &Library, f: &Function) -> Export {
    match &lib.profile().resolver {
        Some(r) if r.function == f.name => {
            let (symbol, needs_enum) = &r.ptsz_wrapper;
            Export::Resolver {
                ptsz_wrapper: f.symbol == *symbol && f.variants.is_empty() && lib.enum_named(needs_enum).is_some(),
            }
        }
        _ => Export::Forward,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::build;

    use build::input as param;

    fn kinds(f: Function) -> Function {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.functions.push(f);
        run(&mut lib).unwrap();
        lib.functions.remove(0)
    }

    #[test]
    fn a_shared_count_is_computed_from_every_slice_it_counts() {
        let cstr_array = Type::ptr(Type::ptr(Type::prim(Prim::Char), true), true);
        let f = kinds(build::function(
            "cuThing",
            vec![
                param("n", Type::prim(Prim::UInt), Role::Length { of: "names".into() }, false),
                param("names", cstr_array, Role::InArray { len: Some("n".into()) }, false),
                param("values", Type::ptr(Type::prim(Prim::Int), false), Role::InArray { len: Some("n".into()) }, true),
            ],
        ));
        let counts = vec![Counted::Slice("names".into()), Counted::OptionalSlice("values".into())];
        assert_eq!(f.params[0].kind, ParamKind::Length { counts });
        let computed = Count::Computed { param: "n".into() };
        assert_eq!(f.params[1].kind, ParamKind::CstrArray { nullable: false, is_const: true, count: computed.clone() });
        assert!(matches!(&f.params[2].kind, ParamKind::InArray { nullable: true, count, .. } if *count == computed));
        assert!(!f.needs_unsafe);
    }

    #[test]
    fn raw_pointers_and_unchecked_counts_make_the_fn_unsafe() {
        let dims = param("dims", Type::ptr(Type::prim(Prim::U64), true), Role::InArray { len: None }, false);
        assert!(kinds(build::function("cuRaw", vec![dims])).needs_unsafe);
        let void = param("p", Type::ptr(Type::prim(Prim::Void), false), Role::InRef, false);
        let f = kinds(build::function("cuUnfit", vec![void]));
        assert_eq!((&f.params[0].kind, f.needs_unsafe), (&ParamKind::Unfit { why: Unfit::RoleType }, true));
        let n = param("n", Type::prim(Prim::UInt), Role::Length { of: "x".into() }, false);
        let f = kinds(build::function("cuCount", vec![n]));
        assert_eq!((&f.params[0].kind, f.needs_unsafe), (&ParamKind::Unfit { why: Unfit::NothingCounted }, false));
    }

    /// A library with a device address type (`[trace.handles]` class `device_ptr`), a record
    /// holding one in a nested field, and `fs`.
    fn with_addresses(fs: Vec<Function>) -> Library {
        let mut lib = build::library("cb", fs);
        lib.typedefs.push(build::typedef("dptr", Type::prim(Prim::U64), TypedefKind::ScalarHandle { prim: Prim::U64 }));
        lib.trace.handles.insert("dptr".into(), TraceClass::DevicePtr);
        let inner = build::record("Inner", RecordKind::Struct, vec![build::field("address", Type::named("dptr"), 0, false)]);
        let outer = build::record("Outer", RecordKind::Union, vec![build::field("wait", Type::named("Inner"), 0, false)]);
        let plain = build::record("Plain", RecordKind::Struct, vec![build::field("n", Type::prim(Prim::UInt), 0, false)]);
        lib.records.extend([inner, outer, plain]);
        run(&mut lib).unwrap();
        lib
    }

    #[test]
    fn device_addresses_and_records_holding_addresses_make_the_fn_unsafe() {
        let addr = || param("addr", Type::named("dptr"), Role::Value, false);
        let out = param("out", Type::ptr(Type::prim(Prim::UInt), false), Role::OutValue, false);
        let handle = param("h", Type::named("H"), Role::Value, false);
        let ops = param("ops", Type::ptr(Type::named("Outer"), true), Role::InArray { len: Some("n".into()) }, false);
        let n = param("n", Type::prim(Prim::UInt), Role::Length { of: "ops".into() }, false);
        let plain = param("p", Type::ptr(Type::named("Plain"), true), Role::InRef, false);
        let lib = with_addresses(vec![
            build::function("cuWrite", vec![addr()]),
            build::function("cuAsk", vec![out.clone(), addr()]),
            build::function("cuBind", vec![out, handle, addr()]),
            build::function("cuBatch", vec![n, ops]),
            build::function("cuPlain", vec![plain]),
        ]);
        let why: Vec<Vec<String>> =
            lib.functions.iter().map(|f| f.unsafe_because.iter().map(Unsafety::short).collect()).collect();
        assert_eq!(why[0], ["device(addr)"], "a call acting on an address");
        assert!(why[1].is_empty(), "a call only asking about an address");
        assert_eq!(why[2], ["device(addr)"], "an output beside a handle the call acts on is no query");
        assert_eq!(why[3], ["record(ops.wait.address)"], "an element record holding an address in a nested field");
        assert!(why[4].is_empty() && !lib.functions[4].needs_unsafe);
        assert!(lib.functions.iter().all(|f| f.needs_unsafe != f.unsafe_because.is_empty()));
    }

    #[test]
    fn an_uncallable_size_function_keeps_its_abi_symbol() {
        let out = Type::ptr(Type::prim(Prim::Char), false);
        let role = Role::OutBuffer { len: None, string: false, size_from: Some("nvThingSize".into()), capacity: None };
        let mut size = build::function("nvThingSize", vec![]);
        size.symbol = "__nvThingSize_12_9".into();
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.functions = vec![build::function("nvThing", vec![param("buf", out, role, false)]), size];
        run(&mut lib).unwrap();
        let ParamKind::OutBuffer { size, .. } = &lib.functions[0].params[0].kind else { panic!("{:?}", lib.functions[0].params) };
        assert!(matches!(size, BufferSize::BadQuery { why, .. } if why.contains("returns no size")), "{size:?}");
        assert_eq!(size.query_symbol(), Some("__nvThingSize_12_9"));
    }

    #[test]
    fn an_untyped_out_value_returns_the_written_type_only_where_annotated() {
        let void_out = || param("dptr_out", Type::ptr(Type::prim(Prim::Void), false), Role::OutValue, false);
        let f = kinds(build::function("cudaBare", vec![void_out()]));
        assert_eq!(f.params[0].kind, ParamKind::Unfit { why: Unfit::RoleType });
        let mut p = void_out();
        p.written = Some(Type::ptr(Type::prim(Prim::Void), false));
        let f = kinds(build::function("cudaWritten", vec![p]));
        let pointee = Pointee { ty: Type::ptr(Type::prim(Prim::Void), false), is_const: false };
        assert_eq!((&f.params[0].kind, f.needs_unsafe), (&ParamKind::OutValue { pointee, untyped: true }, false));
    }

    #[test]
    fn returns_follow_the_c_type() {
        let mut f = build::function("nvrtcGetErrorString", vec![]);
        f.ret = Type::ptr(Type::prim(Prim::Char), true);
        assert_eq!(kinds(f.clone()).ret_kind, ReturnKind::StaticCstr);
        f.ret = Type::prim(Prim::Void);
        assert_eq!(kinds(f.clone()).ret_kind, ReturnKind::Void);
        // The status enum counts only with the library's codes (`passes::status`).
        f.ret = Type::named("CUresult");
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.status_enum = Some("CUresult".into());
        assert_eq!(return_kind(&lib, &f), ReturnKind::Value);
        crate::passes::status::run(&mut lib).unwrap();
        assert_eq!(return_kind(&lib, &f), ReturnKind::Status);
    }
}
