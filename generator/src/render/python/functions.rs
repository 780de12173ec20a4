//! Function view models: each parameter's conversion kind (decided by `passes::python`) with
//! what the templates print for it.

use super::lifetimes;
use super::types::{self, handle_class, HandleView};
use super::{conv, rust_ident};
use crate::ir::{
    CallbackKind, Function, Library, Prim, PyConv, Resolved, ReturnShape, Role, SizeFrom, Type, ValueCount, ValueKind,
};
use crate::passes::python::value_kind;
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

#[derive(Serialize)]
pub struct ParamView {
    pub index: usize,
    pub cname: String,
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
    /// byte count), the status code for an unlisted member and the number of outputs.
    pub selector: usize,
    pub members: Vec<MemberView>,
    pub size_ptr: Option<usize>,
    pub size_arg: Option<usize>,
    pub invalid: i64,
    pub nouts: usize,
    /// The early return for an unlisted selector member.
    pub fail: String,
    /// `selected_list`: Python argument variables of the enum array and of the sizes.
    pub selector_rust: String,
    pub size_rust: String,
    /// Integer width and sign of the count in `len_var` (how a negative count is told apart).
    pub len_bits: u32,
    pub len_signed: bool,
    /// Caller buffers (`buffer`, `ptr`, `record_ref`): the callee writes through it.
    pub writes: bool,
    /// `buffer`: the argument variable holding its size in bytes, with its width and sign...
    pub size_var: String,
    pub size_bits: u32,
    pub size_signed: bool,
    /// ... or the function reporting it (called with the same leading arguments).
    pub size_fn: String,
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
        let class = lib.typedef(name).filter(|t| s.kind == ValueKind::Int && types::typedef_class(lib, t).is_some());
        if let Some(t) = class {
            s.wrap = t.name.clone();
            s.stub = t.name.clone();
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
            signed: e.repr.is_signed(),
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
        (ValueKind::Cstr, _) => {
            Scalar { kind: ValueKind::Cstr, bits: 64, size: 8, stub: "bytes | None".into(), ..Default::default() }
        }
        _ => ptr_scalar(),
    }
}

fn ptr_scalar() -> Scalar {
    Scalar { kind: ValueKind::Ptr, bits: 64, size: 8, stub: "int".into(), ..Default::default() }
}

pub fn view(lib: &Library, f: &Function, handles: &[HandleView]) -> Result<FnView, String> {
    let mut ret_scalar = Scalar::default();
    let ret = match f.returns {
        ReturnShape::Status => Ret::Status,
        ReturnShape::Value => match value_kind(lib, &f.ret) {
            ValueKind::Cstr => Ret::Cstr,
            ValueKind::Record => {
                ret_scalar = scalar(lib, &f.ret, handles);
                Ret::Record
            }
            _ => return Err("returns a value that is neither a C string nor a record".into()),
        },
        ReturnShape::Void => return Err("returns void".into()),
    };
    let mut params = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        let py = p.names.python.clone();
        let mut v = ParamView {
            index: i,
            cname: p.name.clone(),
            rust: rust_ident(&py),
            py,
            kind: conv(p)?,
            scalar: ptr_scalar(),
            nullable: p.nullable,
            len_var: String::new(),
            capacity: 0,
            string: false,
            callback: None,
            user_data: None,
            user_data_rust: String::new(),
            keep_key: String::new(),
            stub: "Any".into(),
            arg_pos: 0,
            is_arg: false,
            default: p.py_default.map(|d| d.to_string()).unwrap_or_default(),
            is_out: false,
            words: 1,
            selector: 0,
            members: Vec::new(),
            size_ptr: None,
            size_arg: None,
            invalid: 0,
            nouts: 0,
            fail: String::new(),
            selector_rust: String::new(),
            size_rust: String::new(),
            len_bits: 64,
            len_signed: false,
            writes: matches!(p.direction, crate::ir::Direction::Out | crate::ir::Direction::InOut)
                && matches!(p.ty, Type::Pointer { is_const: false, .. }),
            size_var: String::new(),
            size_bits: 64,
            size_signed: false,
            size_fn: String::new(),
        };
        let pointee = p.ty.pointee().map(|(t, _)| t);
        let pointee_scalar = || pointee.map(|t| scalar(lib, t, handles)).unwrap_or_else(ptr_scalar);
        match (&p.role, v.kind) {
            // Set by the selected value's conversion from its member's size.
            (_, PyConv::SelectedSize) => {}
            (Role::SelectedValue { selector, len }, _) => {
                let (sel, table) = selector_table(lib, f, selector)?;
                v.selector = sel;
                v.members = table.members.iter().map(|m| member_view(lib, m, handles)).collect();
                if let Some(l) = len {
                    let (k, lp) =
                        f.params.iter().enumerate().find(|(_, q)| &q.name == l).ok_or_else(|| format!("no parameter {l}"))?;
                    if matches!(lp.ty, Type::Pointer { .. }) {
                        v.size_ptr = Some(k);
                    } else {
                        v.size_arg = Some(k);
                    }
                }
                v.invalid = invalid_value(lib)?;
            }
            (Role::SelectedValues { selectors, sizes }, _) => {
                let (sel, sp) = f
                    .params
                    .iter()
                    .enumerate()
                    .find(|(_, q)| &q.name == selectors)
                    .ok_or_else(|| format!("no selectors {selectors}"))?;
                let table = match sp.ty.pointee().map(|(t, _)| lib.resolve(t)) {
                    Some(Resolved::Enum(e)) => {
                        lib.value_table(&e.name).ok_or_else(|| format!("no value table for {}", e.name))?
                    }
                    _ => return Err(format!("selectors {selectors} is not an enum array")),
                };
                v.selector = sel;
                v.members = table.members.iter().map(|m| member_view(lib, m, handles)).collect();
                v.size_arg = sizes.as_ref().and_then(|s| f.params.iter().position(|q| &q.name == s));
                v.len_var = match &sp.role {
                    Role::InArray { len: Some(l) } => len_var(f, l)?,
                    _ => return Err(format!("selectors {selectors} has no count")),
                };
                v.invalid = invalid_value(lib)?;
                v.stub = "list[Any]".into();
            }
            (Role::Value | Role::Length { .. }, _) => {
                let s = scalar(lib, &p.ty, handles);
                v.stub = match s.kind {
                    ValueKind::Handle | ValueKind::Enum => format!("{} | int", s.class),
                    ValueKind::Ptr => "Any".into(),
                    _ => s.stub.clone(),
                };
                v.scalar = s;
            }
            (Role::InRef | Role::InOutRef, conv) => {
                let s = pointee_scalar();
                match conv {
                    PyConv::RecordRef => v.stub = if p.nullable { format!("{} | None", s.class) } else { s.class.clone() },
                    PyConv::InoutScalar => v.stub = arg_stub(&s),
                    PyConv::HandleRef => v.stub = format!("{} | int | None", s.class),
                    _ => {}
                }
                v.scalar = s;
            }
            (Role::OutValue, PyConv::OutList) => {
                // `T **`: the elements are `T`, counted by the out value `counted_by`
                let inner = match pointee.map(|t| lib.resolve(t)) {
                    Some(Resolved::Pointer { pointee: elem, .. }) => scalar(lib, elem, handles),
                    _ => return Err(format!("{}: a counted out value that is no pointer to pointer", p.name)),
                };
                let count = p.counted_by.as_deref().unwrap_or_default();
                let k = f
                    .params
                    .iter()
                    .position(|q| q.name == count)
                    .ok_or_else(|| format!("{}: no count parameter {count}", p.name))?;
                v.len_var = format!("o{k}.u64()");
                (v.len_bits, v.len_signed) = count_scalar(lib, f, count, handles);
                v.stub = format!("list[{}]", inner.stub);
                v.scalar = inner;
            }
            (Role::OutValue, _) => {
                let s = pointee_scalar();
                v.stub = s.stub.clone();
                v.scalar = s;
            }
            (Role::CStrIn, _) => v.stub = if p.nullable { "bytes | None".into() } else { "bytes".into() },
            (Role::CStrOut, _) => v.stub = "bytes | None".into(),
            (Role::InArray { len } | Role::OutArray { len }, conv) => {
                let s = pointee_scalar();
                if conv == PyConv::OutArray {
                    v.stub = format!("list[{}]", s.stub);
                    if len.is_none() {
                        v.capacity = 1024;
                    }
                } else {
                    v.stub = format!("Sequence[{}] | None", arg_stub(&s));
                }
                if let Some(l) = len {
                    v.len_var = len_var(f, l)?;
                }
                v.scalar = s;
            }
            (Role::OutBuffer { len, string, capacity, .. }, conv) => {
                v.string = *string;
                if conv == PyConv::OutBuffer {
                    v.stub = "bytes".into();
                    match (len, capacity) {
                        (Some(l), _) => v.len_var = len_var(f, l)?,
                        (None, Some(c)) => v.capacity = u64::from(*c),
                        (None, None) => return Err(format!("{}: buffer without a size", p.name)),
                    }
                } else {
                    v.stub = "bytes | bytearray | Any".into();
                }
            }
            (Role::Callback, _) => {
                let cb = p.callback.as_ref().ok_or("a callback the callbacks pass did not see")?;
                v.callback = Some(cb.kind);
                if let Some(u) = &cb.user_data {
                    let k = f.params.iter().position(|q| &q.name == u).ok_or_else(|| format!("no parameter {u}"))?;
                    v.user_data = Some(k);
                    v.user_data_rust = rust_ident(&f.params[k].names.python);
                }
                v.keep_key = lifetimes::keep_key(f, cb)?;
            }
            (Role::HostPtr | Role::Opaque | Role::UserData, _) => {}
        }
        if let Some(link) = &p.size {
            v.writes = link.writes;
            match &link.from {
                SizeFrom::Param(name) => {
                    v.size_var = len_var(f, name)?;
                    let (bits, signed) = count_scalar(lib, f, name, handles);
                    (v.size_bits, v.size_signed) = (bits, signed);
                }
                SizeFrom::Function(name) => v.size_fn = name.clone(),
            }
        }
        if let Some(name) = count_name(&p.role) {
            (v.len_bits, v.len_signed) = count_scalar(lib, f, name, handles);
        }
        params.push(v);
    }
    let args: Vec<usize> = params.iter().filter(|p| p.kind.is_arg()).map(|p| p.index).collect();
    let outs: Vec<usize> = params.iter().filter(|p| p.kind.is_out()).map(|p| p.index).collect();
    for p in &mut params {
        p.is_arg = args.contains(&p.index);
        p.arg_pos = args.iter().position(|&i| i == p.index).unwrap_or(0);
        p.is_out = outs.contains(&p.index);
        p.words = p.scalar.size.div_ceil(8).max(1);
        p.nouts = outs.len();
    }
    let status = lib.status_enum.clone().unwrap_or_else(|| "int".into());
    let rust_names: Vec<String> = params.iter().map(|p| p.rust.clone()).collect();
    for p in params.iter_mut().filter(|p| matches!(p.kind, PyConv::SelectedIn | PyConv::SelectedOut | PyConv::SelectedList)) {
        p.fail = format!("conv::fail(py, &E_{status}, {}, LIBRARY_MISSING, {})", p.invalid, p.nouts);
        p.selector_rust = rust_names[p.selector].clone();
        p.size_rust = p.size_arg.map(|k| rust_names[k].clone()).unwrap_or_default();
    }
    let mut ret_items = vec![status];
    for &o in &outs {
        ret_items.push(format!("{} | None", out_stub(&params[o])));
    }
    match ret {
        Ret::Cstr => ret_items.push("bytes | None".into()),
        Ret::Record => ret_items.push(ret_scalar.stub.clone()),
        Ret::Status => {}
    }
    let stub_ret = format!("tuple[{}]", ret_items.join(", "));
    let release = lifetimes::release(f)?;
    Ok(FnView {
        release,
        keeps_gil: f.keeps_gil.is_some(),
        name: f.name.clone(),
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

/// The selector parameter's index and its enum's member type table.
fn selector_table<'a>(lib: &'a Library, f: &Function, selector: &str) -> Result<(usize, &'a crate::ir::ValueTable), String> {
    let (i, p) =
        f.params.iter().enumerate().find(|(_, q)| q.name == selector).ok_or_else(|| format!("no selector {selector}"))?;
    match lib.resolve(&p.ty) {
        Resolved::Enum(e) => lib.value_table(&e.name).map(|t| (i, t)).ok_or_else(|| format!("no value table for {}", e.name)),
        _ => Err(format!("selector {selector} is not an enum")),
    }
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
fn count_name(r: &Role) -> Option<&str> {
    match r {
        Role::InArray { len } | Role::OutArray { len } | Role::OutBuffer { len, .. } => len.as_deref(),
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

/// `a{i}` for a Length argument, `o{i}` for an in/out count.
fn len_var(f: &Function, name: &str) -> Result<String, String> {
    let (i, p) = f.params.iter().enumerate().find(|(_, p)| p.name == name).ok_or_else(|| format!("no parameter {name}"))?;
    Ok(match p.role {
        Role::InOutRef => format!("o{i}"),
        _ => format!("a{i}"),
    })
}
