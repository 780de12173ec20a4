//! Function view models: each parameter's Python kind (`passes::python`, from its
//! [`ParamKind`]) with what the templates print for it, built from the kind and its links.

use super::lifetimes;
use super::types::{self, handle_class, HandleView};
use super::{conv, rust_ident};
use crate::ir::{
    BufferSize, CallableLife, CallbackKind, CallbackUse, Count as CountParam, Function, Library, Param, ParamKind, Prim, PyConv,
    Resolved, ReturnKind, SizeFrom, Type, ValueCount, ValueKind,
};
use crate::passes::python::value_kind;
use crate::profile::AddressInts;
use serde::Serialize;

/// What a function returns besides its outputs.
#[derive(Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Ret {
    /// The library's status enum.
    Status,
    /// A `const char*`.
    Cstr,
    /// A record by value (`cudaCreateChannelDesc`): returned as its class after the status.
    Record,
}

#[derive(Serialize)]
pub struct FnView {
    pub name: String,
    /// The name errors give (`Function::names`' Python name: the C name in the tuple modules,
    /// the public snake_case one in the raising modules, whose wrappers call this function).
    pub py: String,
    pub symbol: String,
    pub ret: Ret,
    /// The record class and size of `Ret::Record`.
    pub ret_scalar: Scalar,
    pub params: Vec<ParamView>,
    /// Python arguments in order (index into `params`).
    pub args: Vec<usize>,
    /// Outputs in order (index into `params`).
    pub outs: Vec<usize>,
    /// Leading Python arguments a call must give (the rest have defaults).
    pub required: usize,
    pub stub_ret: String,
    pub brief: String,
    /// Runtime docstring as a Rust string literal: text signature line, then the docs.
    pub doc_literal: String,
    /// The same docs as the indented body of a `.pyi` docstring.
    pub doc_stub: String,
    /// The kept Python callable this call releases, if any.
    pub release: Option<lifetimes::Release>,
    /// The call runs with the GIL held (`Function::keeps_gil`).
    pub keeps_gil: bool,
}

/// A scalar the Rust support code converts (argument, output or array element).
#[derive(Serialize, Clone, Default)]
pub struct Scalar {
    pub kind: ValueKind,
    pub bits: u32,
    pub signed: bool,
    /// Handle class / enum / record name.
    pub class: String,
    /// Size in bytes.
    pub size: u64,
    pub stub: String,
    /// An `int` whose C type has a typedef class (`cuuint64_t`): outputs are returned as it.
    pub wrap: String,
}

#[derive(Serialize, Default)]
pub struct ParamView {
    pub index: usize,
    pub py: String,
    pub rust: String,
    /// Conversion kind, from the IR.
    pub kind: PyConv,
    pub scalar: Scalar,
    pub nullable: bool,
    /// Variable holding a length (`a3` / `o3`) for arrays and buffers; empty when none.
    pub len_var: String,
    /// Fixed capacity for buffers and arrays without a length parameter.
    pub capacity: u64,
    /// Buffer contents are a NUL-terminated string.
    pub string: bool,
    /// For `callback`: the trampoline in `support/rs/callbacks.rs` that calls a Python callable,
    /// or `raw` (C function pointers only), from the IR; the paired user-data parameter index.
    pub callback: Option<CallbackKind>,
    /// What becomes of its Python callable after a successful call (`CallbackKind::life`).
    pub life: Option<CallableLife>,
    pub user_data: Option<usize>,
    /// Rust identifier of the paired user-data argument.
    pub user_data_rust: String,
    /// For a repeating callback kind: the key its callable is kept under (see `lifetimes`).
    pub keep_key: String,
    pub stub: String,
    /// Position among the Python arguments (when `is_arg`).
    pub arg_pos: usize,
    /// A Python argument / part of the returned tuple.
    pub is_arg: bool,
    /// The argument's default as Python source (`Param::py_default`), or empty.
    pub default: String,
    pub is_out: bool,
    /// Words of `u64` storage for an `out` value.
    pub words: u64,
    /// `selected_out` / `selected_in` / `selected_list`: the selector argument (for a list: the
    /// enum array, counted by `len_var`; `size_arg`: the array of byte sizes), the member types, the size
    /// parameter (`size_ptr`: an in/out `size_t*` set from the member; `size_arg`: the caller's
    /// byte count).
    pub selector: usize,
    pub members: Vec<MemberView>,
    pub size_ptr: Option<usize>,
    pub size_arg: Option<usize>,
    /// The early return for an unlisted selector member.
    pub fail: String,
    /// `selected_list`: Python argument variables of the enum array and of the sizes.
    pub selector_rust: String,
    pub size_rust: String,
    /// Integer width and sign of the count in `len_var` (how a negative count is told apart).
    pub len_bits: u32,
    pub len_signed: bool,
    /// Caller buffers (`buffer`, `ptr`, `record_ref`, `record_ref_opt`): the callee writes through it.
    pub writes: bool,
    /// `buffer`: the argument variable holding its size in bytes, with its width and sign...
    pub size_var: String,
    pub size_bits: u32,
    pub size_signed: bool,
    /// ... or the function reporting it (called with the same leading arguments).
    pub size_fn: String,
    /// What gives the size, for errors: the size argument's or the size function's Python name.
    pub size_name: String,
    /// `buffer`: an int address is taken too (unchecked): where no size function can check a
    /// buffer object, and in the raising modules, whose oracle takes an address for every caller
    /// buffer (cuda.bindings' nvjitlink/nvvm: "a Python int representing the pointer address").
    pub int_ok: bool,
    /// `buffer`: what the argument takes, for errors.
    pub expected: String,
}

/// One member of a selector enum and how its value crosses the boundary.
#[derive(Serialize)]
pub struct MemberView {
    pub value: i64,
    pub scalar: Scalar,
    pub boolean: bool,
    /// `one`, `fixed` (`n` elements; a NUL-terminated string when `string`) or `sized`.
    pub count: Count,
    pub n: u64,
    pub string: bool,
    /// Bytes of storage for a fixed-size member.
    pub bytes: u64,
}

#[derive(Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Count {
    One,
    Fixed,
    Sized,
}

fn int_scalar(p: Prim) -> Scalar {
    match p {
        Prim::Float => Scalar { kind: ValueKind::Float, bits: 32, stub: "float".into(), size: 4, ..Default::default() },
        Prim::Double => Scalar { kind: ValueKind::Float, bits: 64, stub: "float".into(), size: 8, ..Default::default() },
        _ => Scalar {
            kind: ValueKind::Int,
            bits: (p.size().max(1) * 8) as u32,
            signed: p.is_signed(),
            stub: "int".into(),
            size: p.size().max(1),
            ..Default::default()
        },
    }
}

/// How a value of type `ty` crosses the boundary.
fn scalar(lib: &Library, ty: &Type, handles: &[HandleView]) -> Scalar {
    let mut s = resolved_scalar(lib, ty, handles);
    if let Type::Named { name } = ty {
        let class = lib.typedef(name).filter(|t| types::typedef_class(lib, t).is_some());
        match class {
            Some(t) if s.kind == ValueKind::Int => {
                s.wrap = t.name.clone();
                s.stub = t.name.clone();
            }
            // a `void *` typedef's class, named where its argument is refused
            Some(t) if s.kind == ValueKind::Ptr => s.class = t.name.clone(),
            _ => {}
        }
    }
    s
}

fn resolved_scalar(lib: &Library, ty: &Type, handles: &[HandleView]) -> Scalar {
    match (value_kind(lib, ty), lib.resolve(ty)) {
        (ValueKind::Int | ValueKind::Float, Resolved::Prim(p)) => int_scalar(p),
        (ValueKind::Enum, Resolved::Enum(e)) => Scalar {
            kind: ValueKind::Enum,
            bits: (e.repr.size() * 8) as u32,
            signed: e.repr.is_signed() || lib.profile().python.c_int_enums(),
            class: e.name.clone(),
            size: e.repr.size(),
            stub: e.name.clone(),
            ..Default::default()
        },
        (ValueKind::Handle, Resolved::OpaqueHandle(t) | Resolved::ScalarHandle(t, _)) => match handle_class(handles, &t.name) {
            Some(h) => Scalar {
                kind: ValueKind::Handle,
                bits: h.bits,
                signed: h.signed,
                class: h.name.clone(),
                size: (h.bits / 8) as u64,
                stub: h.name.clone(),
                ..Default::default()
            },
            None => ptr_scalar(),
        },
        (ValueKind::Record, Resolved::Record(r)) => {
            Scalar { kind: ValueKind::Record, class: r.name.clone(), size: r.size, stub: r.name.clone(), ..Default::default() }
        }
        (ValueKind::Cstr, _) => cstr_scalar(),
        _ => ptr_scalar(),
    }
}

fn cstr_scalar() -> Scalar {
    Scalar { kind: ValueKind::Cstr, bits: 64, size: 8, stub: "bytes | None".into(), ..Default::default() }
}

fn ptr_scalar() -> Scalar {
    Scalar { kind: ValueKind::Ptr, bits: 64, size: 8, stub: "int".into(), ..Default::default() }
}

pub fn view(lib: &Library, f: &Function, handles: &[HandleView]) -> Result<FnView, String> {
    let mut ret_scalar = Scalar::default();
    let ret = match f.ret_kind {
        ReturnKind::Status => Ret::Status,
        ReturnKind::StaticCstr => Ret::Cstr,
        ReturnKind::Value if value_kind(lib, &f.ret) == ValueKind::Record => {
            ret_scalar = scalar(lib, &f.ret, handles);
            Ret::Record
        }
        ReturnKind::Pointer | ReturnKind::Value => return Err("returns a value that is neither a C string nor a record".into()),
        ReturnKind::Void => return Err("returns void".into()),
    };
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        params.push(param_view(lib, f, i, p, handles)?);
    }
    let args: Vec<usize> = params.iter().filter(|p| p.kind.is_arg()).map(|p| p.index).collect();
    let outs: Vec<usize> = params.iter().filter(|p| p.kind.is_out()).map(|p| p.index).collect();
    for p in &mut params {
        p.is_arg = args.contains(&p.index);
        p.arg_pos = args.iter().position(|&i| i == p.index).unwrap_or(0);
        p.is_out = outs.contains(&p.index);
        p.words = p.scalar.size.div_ceil(8).max(1);
    }
    let status = lib.status_enum.clone().unwrap_or_else(|| "int".into());
    link_selected(lib, &mut params, &status, outs.len())?;
    let stub_ret = stub_ret(&params, &outs, &status, ret, &ret_scalar);
    Ok(FnView {
        release: lifetimes::release(f)?,
        keeps_gil: f.keeps_gil.is_some(),
        name: f.name.clone(),
        py: f.names.python.clone(),
        symbol: f.symbol.clone(),
        ret,
        ret_scalar,
        doc_literal: doc_literal(f, &params, &args, &stub_ret),
        required: args.iter().take_while(|&&i| params[i].default.is_empty()).count(),
        doc_stub: doc_stub(f, &stub_ret),
        params,
        args,
        outs,
        stub_ret,
        brief: f.doc.brief.replace('\\', "\\\\").replace("\"\"\"", "'''"),
    })
}

/// `tuple[status, outputs..., (the C string or the record)]`.
fn stub_ret(params: &[ParamView], outs: &[usize], status: &str, ret: Ret, ret_scalar: &Scalar) -> String {
    let mut items = vec![status.to_string()];
    items.extend(outs.iter().map(|&o| format!("{} | None", out_stub(&params[o]))));
    match ret {
        Ret::Cstr => items.push("bytes | None".into()),
        Ret::Record => items.push(ret_scalar.stub.clone()),
        Ret::Status => {}
    }
    format!("tuple[{}]", items.join(", "))
}

/// The view of parameter `i`: what its Python kind prints, from its [`ParamKind`] and links.
fn param_view(lib: &Library, f: &Function, i: usize, p: &Param, handles: &[HandleView]) -> Result<ParamView, String> {
    let py = p.names.python.clone();
    let mut v = ParamView {
        index: i,
        rust: rust_ident(&py),
        py,
        kind: conv(p)?,
        scalar: ptr_scalar(),
        nullable: p.nullable,
        stub: "Any".into(),
        default: p.py_default.map(|d| d.to_string()).unwrap_or_default(),
        words: 1,
        len_bits: 64,
        writes: p.writes,
        size_bits: 64,
        ..Default::default()
    };
    by_kind(lib, f, p, &mut v, handles)?;
    if let Some(link) = &p.size {
        match &link.from {
            SizeFrom::Param(name) => {
                v.size_var = len_var(f, name)?;
                v.size_name = f.params[index_of(f, name)?].names.python.clone();
                (v.size_bits, v.size_signed) = count_scalar(lib, f, name, handles);
            }
            // The raw layer names functions by ABI symbol (`__nvJitLinkGetLinkedCubinSize_12_9`).
            SizeFrom::Function(name) => {
                let size = match &p.kind {
                    ParamKind::OutBuffer { size, .. } => size.query_symbol(),
                    _ => None,
                };
                v.size_fn =
                    size.ok_or_else(|| format!("{}: sized by {name} but its kind has no size query", p.name))?.to_string();
                v.size_name = lib.function(name).map_or_else(|| name.clone(), |g| g.names.python.clone());
            }
        }
    }
    let python = &lib.profile().python;
    v.int_ok = v.size_fn.is_empty() || python.address_ints() == AddressInts::IntPtr;
    v.expected = buffer_expected(v.writes, v.int_ok, python.read_only_output()).into();
    if let Some(name) = count_param(&p.kind) {
        (v.len_bits, v.len_signed) = count_scalar(lib, f, name, handles);
    }
    Ok(v)
}

/// What a caller buffer takes: an int address where `int_ok`, `bytes` for writing where the
/// module's convention writes them ([`crate::profile::PythonConvention::read_only_output`]).
fn buffer_expected(writes: bool, int_ok: bool, bytes_out: bool) -> &'static str {
    match (writes, int_ok, bytes_out) {
        (false, ..) => "int, buffer or None",
        (true, false, _) => "bytes or writable buffer",
        (true, true, true) => "int, bytes, writable buffer or None",
        (true, true, false) => "int, writable buffer or None",
    }
}

/// What each [`ParamKind`] adds to the view: its scalar, stub type and links.
fn by_kind(lib: &Library, f: &Function, p: &Param, v: &mut ParamView, handles: &[HandleView]) -> Result<(), String> {
    let scalar_of = |t: &Type| scalar(lib, t, handles);
    match &p.kind {
        // Set by the selected value's conversion from its member's size.
        ParamKind::SelectedLen { by_pointer: true, .. } => {}
        ParamKind::SelectedIn { table, .. } | ParamKind::SelectedOut { table, .. } => selected(lib, f, p, v, table, handles)?,
        ParamKind::SelectedList { selectors, table, sizes } => selected_list(lib, f, v, selectors, table, sizes, handles)?,
        ParamKind::Value | ParamKind::Length { .. } | ParamKind::SelectedLen { .. } | ParamKind::Unfit { .. } => {
            v.scalar = scalar_of(&p.ty);
            v.stub = match v.scalar.kind {
                ValueKind::Handle | ValueKind::Enum => format!("{} | int", v.scalar.class),
                ValueKind::Ptr => "Any".into(),
                _ => v.scalar.stub.clone(),
            };
        }
        ParamKind::InRef { pointee, .. } | ParamKind::InOutRef { pointee, .. } => {
            v.scalar = scalar_of(&pointee.ty);
            let s = &v.scalar;
            match v.kind {
                PyConv::RecordRef => v.stub = s.class.clone(),
                PyConv::RecordRefOpt => v.stub = format!("{} | None", s.class),
                PyConv::InoutScalar => v.stub = arg_stub(s),
                PyConv::HandleRef => v.stub = format!("{} | int | None", s.class),
                _ => {}
            }
        }
        ParamKind::OutValue { pointee, .. } if v.kind == PyConv::OutList => owned_list(lib, f, p, v, &pointee.ty, handles)?,
        ParamKind::OutValue { pointee, .. } => {
            v.scalar = scalar_of(&pointee.ty);
            v.stub = v.scalar.stub.clone();
        }
        ParamKind::CstrIn { nullable, .. } => v.stub = if *nullable { "bytes | None".into() } else { "bytes".into() },
        ParamKind::CstrOut => v.stub = "bytes | None".into(),
        ParamKind::InArray { elem, count, .. } | ParamKind::OutArray { elem, count, .. } => {
            array(f, v, scalar_of(&elem.ty), count)?
        }
        ParamKind::CstrArray { count, .. } => array(f, v, cstr_scalar(), count)?,
        ParamKind::OutBuffer { string, alloc, size } => out_buffer(f, p, v, *string, *alloc, size)?,
        ParamKind::Callback { callback } => self::callback(f, v, callback)?,
        ParamKind::Address { .. } | ParamKind::UserData { .. } | ParamKind::InBytes { .. } => {}
    }
    Ok(())
}

/// A selected value: the selector argument, its member table and the size parameter (the
/// [`ParamKind::SelectedLen`] of this value: `size_ptr` by pointer, else `size_arg`).
fn selected(
    lib: &Library,
    f: &Function,
    p: &Param,
    v: &mut ParamView,
    table: &str,
    handles: &[HandleView],
) -> Result<(), String> {
    let (ParamKind::SelectedIn { selector, .. } | ParamKind::SelectedOut { selector, .. }) = &p.kind else {
        return Err(format!("{}: not a selected value", p.name));
    };
    v.selector = index_of(f, selector)?;
    v.members = members(lib, table, handles)?;
    for (k, q) in f.params.iter().enumerate() {
        match &q.kind {
            ParamKind::SelectedLen { of, by_pointer: true } if *of == p.name => v.size_ptr = Some(k),
            ParamKind::SelectedLen { of, by_pointer: false } if *of == p.name => v.size_arg = Some(k),
            _ => {}
        }
    }
    Ok(())
}

/// One selected value per element of the enum array `selectors` (counted by its count), with
/// the member table of `table` and the array of byte sizes `sizes`.
fn selected_list(
    lib: &Library,
    f: &Function,
    v: &mut ParamView,
    selectors: &str,
    table: &str,
    sizes: &Option<String>,
    handles: &[HandleView],
) -> Result<(), String> {
    v.selector = index_of(f, selectors)?;
    v.members = members(lib, table, handles)?;
    v.size_arg = sizes.as_ref().and_then(|s| f.params.iter().position(|q| &q.name == s));
    v.len_var = match &f.params[v.selector].kind {
        ParamKind::InArray { count, .. } if count.param().is_some() => len_var(f, count.param().unwrap_or_default())?,
        _ => return Err(format!("selectors {selectors} has no count")),
    };
    v.stub = "list[Any]".into();
    Ok(())
}

/// A callback: its trampoline kind, the callable's life, the user data carrying it and the key
/// a kept one is kept under.
fn callback(f: &Function, v: &mut ParamView, callback: &CallbackUse) -> Result<(), String> {
    v.callback = Some(callback.kind);
    v.life = Some(callback.kind.life());
    if let Some(u) = &callback.user_data {
        let k = index_of(f, u)?;
        v.user_data = Some(k);
        v.user_data_rust = rust_ident(&f.params[k].names.python);
    }
    v.keep_key = lifetimes::keep_key(f, callback)?;
    Ok(())
}

/// An out value the library points at an array it owns: its elements, counted by the out value
/// `counted_by`.
fn owned_list(
    lib: &Library,
    f: &Function,
    p: &Param,
    v: &mut ParamView,
    pointee: &Type,
    handles: &[HandleView],
) -> Result<(), String> {
    let inner = match lib.resolve(pointee) {
        Resolved::Pointer { pointee: elem, .. } => scalar(lib, elem, handles),
        _ => return Err(format!("{}: a counted out value that is no pointer to pointer", p.name)),
    };
    let count = p.counted_by.as_deref().unwrap_or_default();
    let k = f.params.iter().position(|q| q.name == count).ok_or_else(|| format!("{}: no count parameter {count}", p.name))?;
    v.len_var = format!("o{k}.u64()");
    (v.len_bits, v.len_signed) = count_scalar(lib, f, count, handles);
    v.stub = format!("list[{}]", inner.stub);
    v.scalar = inner;
    Ok(())
}

/// An array of elements `s`: read (a sequence) or filled (a list; 1024 elements when nothing
/// counts it).
fn array(f: &Function, v: &mut ParamView, s: Scalar, count: &CountParam) -> Result<(), String> {
    if v.kind == PyConv::OutArray {
        v.stub = format!("list[{}]", s.stub);
        if *count == CountParam::None {
            v.capacity = 1024;
        }
    } else {
        v.stub = format!("Sequence[{}] | None", arg_stub(&s));
    }
    if let Some(l) = count.param() {
        v.len_var = len_var(f, l)?;
    }
    v.scalar = s;
    Ok(())
}

/// Output bytes: allocated here (sized by their count, else `alloc`), or the caller's buffer.
fn out_buffer(f: &Function, p: &Param, v: &mut ParamView, string: bool, alloc: u32, size: &BufferSize) -> Result<(), String> {
    v.string = string;
    if v.kind != PyConv::OutBuffer {
        v.stub = "bytes | bytearray | Any".into();
        return Ok(());
    }
    v.stub = "bytes".into();
    match size {
        BufferSize::Count { count } if count.param().is_some() => v.len_var = len_var(f, count.param().unwrap_or_default())?,
        BufferSize::Capacity => v.capacity = u64::from(alloc),
        _ => return Err(format!("{}: buffer without a size", p.name)),
    }
    Ok(())
}

/// The failure return and argument variables of selected values, once every view is built.
fn link_selected(lib: &Library, params: &mut [ParamView], status: &str, nouts: usize) -> Result<(), String> {
    let rust_names: Vec<String> = params.iter().map(|p| p.rust.clone()).collect();
    for p in params.iter_mut().filter(|p| matches!(p.kind, PyConv::SelectedIn | PyConv::SelectedOut | PyConv::SelectedList)) {
        let invalid = invalid_value(lib)?;
        p.fail = format!("conv::fail(py, &E_{status}, {invalid}, LIBRARY_MISSING, {nouts})");
        p.selector_rust = rust_names[p.selector].clone();
        p.size_rust = p.size_arg.map(|k| rust_names[k].clone()).unwrap_or_default();
    }
    Ok(())
}

fn index_of(f: &Function, name: &str) -> Result<usize, String> {
    f.params.iter().position(|q| q.name == name).ok_or_else(|| format!("no parameter {name}"))
}

/// The member views of the value table of enum `table`.
fn members(lib: &Library, table: &str, handles: &[HandleView]) -> Result<Vec<MemberView>, String> {
    let t = lib.value_table(table).ok_or_else(|| format!("no value table for {table}"))?;
    Ok(t.members.iter().map(|m| member_view(lib, m, handles)).collect())
}

fn member_view(lib: &Library, m: &crate::ir::ValueMember, handles: &[HandleView]) -> MemberView {
    let scalar = scalar(lib, &m.ty, handles);
    let (count, n) = match m.count {
        ValueCount::One => (Count::One, 1),
        ValueCount::Fixed { n } => (Count::Fixed, u64::from(n)),
        ValueCount::Sized => (Count::Sized, 0),
    };
    let string = count == Count::Fixed && matches!(lib.resolve(&m.ty), Resolved::Prim(Prim::Char));
    MemberView { value: m.value, boolean: m.boolean, count, n, string, bytes: m.size * n, scalar }
}

/// The status code for an argument out of range (`CUDA_ERROR_INVALID_VALUE`).
fn invalid_value(lib: &Library) -> Result<i64, String> {
    lib.status_codes.map(|c| c.invalid_argument).ok_or_else(|| "no status enum to refuse a member with".into())
}

/// What a caller gets back, then the header's docs.
fn doc_text(f: &Function, stub_ret: &str) -> String {
    format!("Returns `{}`.\n\n{}", stub_ret, f.doc.markdown.trim()).trim_end().to_string()
}

/// `__doc__` of the runtime function: CPython reads the first line as `__text_signature__`.
fn doc_literal(f: &Function, params: &[ParamView], args: &[usize], stub_ret: &str) -> String {
    let names: Vec<String> = args
        .iter()
        .map(|&i| match params[i].default.as_str() {
            "" => params[i].py.clone(),
            d => format!("{}={d}", params[i].py),
        })
        .collect();
    format!("{:?}", format!("{}({})\n--\n\n{}", f.name, names.join(", "), doc_text(f, stub_ret)))
}

/// The docstring body of the stub, indented for a `def` and safe inside triple quotes.
fn doc_stub(f: &Function, stub_ret: &str) -> String {
    doc_text(f, stub_ret)
        .replace('\\', "\\\\")
        .replace("\"\"\"", "\\\"\"\"")
        .lines()
        .map(|l| if l.is_empty() { String::new() } else { format!("    {l}") })
        .collect::<Vec<_>>()
        .join("\n")
}

fn arg_stub(s: &Scalar) -> String {
    match s.kind {
        ValueKind::Handle | ValueKind::Enum => format!("{} | int", s.class),
        ValueKind::Cstr => "bytes".into(),
        ValueKind::Ptr => "Any".into(),
        _ => s.stub.clone(),
    }
}

fn out_stub(p: &ParamView) -> String {
    match p.kind {
        PyConv::SelectedOut => "Any".into(),
        PyConv::SelectedList => "list[Any]".into(),
        PyConv::CstrOut | PyConv::OutBuffer => "bytes".into(),
        PyConv::OutArray => format!("list[{}]", p.scalar.stub),
        _ => {
            if p.scalar.kind == ValueKind::Cstr {
                "bytes".into()
            } else {
                p.scalar.stub.clone()
            }
        }
    }
}

/// The count parameter an array or buffer names.
fn count_param(kind: &ParamKind) -> Option<&str> {
    match kind {
        ParamKind::InArray { count, .. } | ParamKind::CstrArray { count, .. } | ParamKind::OutArray { count, .. } => {
            count.param()
        }
        ParamKind::OutBuffer { size: BufferSize::Count { count }, .. } => count.param(),
        _ => None,
    }
}

/// Width and sign of a count parameter (the pointee's for an in/out `size_t *`).
fn count_scalar(lib: &Library, f: &Function, name: &str, handles: &[HandleView]) -> (u32, bool) {
    let Some(p) = f.param(name) else { return (64, false) };
    let ty = p.ty.pointee().map(|(t, _)| t).unwrap_or(&p.ty);
    let s = scalar(lib, ty, handles);
    if s.kind == ValueKind::Int {
        (s.bits, s.signed)
    } else {
        (64, false)
    }
}

/// `a{i}` for a count argument, `o{i}` for an in/out count.
fn len_var(f: &Function, name: &str) -> Result<String, String> {
    let i = index_of(f, name)?;
    Ok(match f.params[i].kind {
        ParamKind::InOutRef { .. } => format!("o{i}"),
        _ => format!("a{i}"),
    })
}
