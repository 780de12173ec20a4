//! Functions -> the raw `sys` layer (one table entry and one `raw_fn!` invocation per exported
//! symbol) and the typed layer (one fn per API name, signature from the roles).

use super::docs;
use super::types::{bare, ident, Ctx};
use crate::ir::{Direction, Function, Prim, ReturnShape, Role, Type, ValueCount, VariantKind};
use serde::Serialize;

// ---------------------------------------------------------------------------
// sys
// ---------------------------------------------------------------------------

#[derive(Serialize)]
pub(super) struct SymbolView {
    pub symbol: String,
    pub api_name: String,
    /// The typed fn that wraps this symbol, if any (`mem_alloc`).
    pub typed_name: Option<String>,
    pub index: usize,
    pub proc_name: String,
    pub version: u32,
    pub per_thread: bool,
    pub params: Vec<SysParam>,
    /// ` -> CUresult` (empty for void).
    pub ret_suffix: String,
    /// `CUresult`, `*const c_char`, `()`.
    pub ret_ty: String,
    /// The expression a sys fn returns when the entry cannot be loaded (`e` is the `LoadError`).
    pub on_load_error: String,
    /// What the cold path returns if it panicked (see `render::on_panic`).
    pub on_panic: String,
    /// The parameters' C names, comma separated (the trace `Desc`'s names).
    pub trace_names: String,
    /// Decoders of the enums the trace `Desc` names (`CUresult::trace_name`), by index.
    pub trace_enums: Vec<String>,
    /// `trace::Kind` of the result `__r`.
    pub ret_kind: String,
    /// The result's trace word.
    pub ret_word: String,
    pub deprecated: Option<String>,
}

#[derive(Serialize, Clone)]
pub(super) struct SysParam {
    pub name: String,
    pub c_name: String,
    pub ty: String,
    /// `trace::Arg` constant of the parameter.
    pub trace_arg: String,
    /// Its trace word (an expression of `u64`, evaluated after the call).
    pub trace_word: String,
}

/// Codes a library's status enum uses for loader failures and bad slice lengths.
pub(super) struct StatusCodes {
    pub status: String,
    pub library_missing: i64,
    pub symbol_missing: i64,
    pub invalid_argument: i64,
}

pub(super) fn symbols(ctx: &Ctx, f: &Function, first_index: usize, default_version: u32, codes: Option<&StatusCodes>, typed_name: Option<&str>) -> Vec<SymbolView> {
    let is_status = codes.is_some_and(|c| matches!(&f.ret, Type::Named { name } if name == &c.status));
    let mut trace_enums = Vec::new();
    let params: Vec<SysParam> = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = ident(&p.name);
            let (trace_arg, trace_word) = ctx.trace_param(&f.name, p, &name, i, is_status, &mut trace_enums);
            SysParam { trace_arg, trace_word, name, c_name: p.name.clone(), ty: ctx.rust(&p.ty) }
        })
        .collect();
    let ret_ty = if f.ret.is_void() { "()".to_string() } else { ctx.rust(&f.ret) };
    let is_cstr_ret = matches!(&f.ret, Type::Pointer { pointee, is_const: true } if Ctx::is_char(pointee));
    let on_load_error = if is_status {
        "load_status(&e)".to_string()
    } else if is_cstr_ret {
        "{ let _ = e; c\"(library not loaded)\".as_ptr() }".to_string()
    } else if f.ret.is_void() {
        "{ let _ = e; }".to_string()
    } else if matches!(f.ret, Type::Pointer { .. }) {
        "{ let _ = e; core::ptr::null_mut() }".to_string()
    } else {
        "{ let _ = e; unsafe { core::mem::zeroed() } }".to_string()
    };
    let on_panic = crate::render::on_panic(ctx.lib, f);
    let (ret_kind, ret_word) = if f.ret.is_void() {
        ("crate::trace::Kind::Void".to_string(), "0u64".to_string())
    } else {
        ctx.trace_word(&f.ret, "__r", is_cstr_ret, &mut trace_enums)
    };
    let trace_names = f.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(",");
    let mut out = vec![(f.symbol.clone(), f.version, false)];
    for v in &f.variants {
        out.push((v.symbol.clone(), v.version.or(f.version), matches!(v.kind, VariantKind::Ptds | VariantKind::Ptsz)));
    }
    out.into_iter()
        .enumerate()
        .map(|(i, (symbol, version, per_thread))| SymbolView {
            typed_name: if i == 0 { typed_name.map(str::to_string) } else { None },
            symbol,
            api_name: f.name.clone(),
            index: first_index + i,
            proc_name: f.proc_name.clone(),
            version: version.unwrap_or(default_version),
            per_thread,
            params: params.clone(),
            ret_suffix: ctx.ret_suffix(&f.ret),
            ret_ty: ret_ty.clone(),
            on_load_error: on_load_error.clone(),
            on_panic: on_panic.clone(),
            trace_names: trace_names.clone(),
            trace_enums: trace_enums.clone(),
            ret_kind: ret_kind.clone(),
            ret_word: ret_word.clone(),
            deprecated: f.deprecated.as_ref().map(|d| docs::str_literal(d)),
        })
        .collect()
}

// ---------------------------------------------------------------------------
// typed
// ---------------------------------------------------------------------------

#[derive(Serialize)]
pub(super) struct TypedFn {
    pub name: String,
    pub c_name: String,
    pub symbol: String,
    pub doc: Vec<String>,
    pub deprecated: Option<String>,
    pub is_unsafe: bool,
    /// `<T: crate::Plain>` when a selected value's type is the caller's choice.
    pub generics: String,
    pub params: Vec<TParam>,
    /// `name: Type` of each parameter in the signature.
    pub sig: Vec<String>,
    pub returns: Returns,
    pub ret_ty: String,
    /// Expressions of the returned values, in order (one: bare; several: tuple).
    pub outputs: Vec<String>,
}

/// How a typed fn takes a parameter (the templates switch on this).
#[derive(Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum TKind {
    /// Passed as is (also every raw pointer).
    #[default]
    Value,
    InRef,
    InOutRef,
    OutValue,
    CstrIn,
    CstrOut,
    InArray,
    InArrayCstr,
    OutArray,
    OutBuffer,
    /// A count computed from the slices it counts.
    Length,
    SelectedIn,
    SelectedOut,
    /// The byte size of a selected value, from `size_of::<T>()`.
    SelectedLen,
}

/// What a typed fn's C call returns.
#[derive(Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum Returns {
    Status,
    Value,
    Void,
}

#[derive(Serialize, Default)]
pub(super) struct TParam {
    pub kind: TKind,
    pub name: String,
    /// Base for locals: `__{local}`.
    pub local: String,
    /// Type in the signature; `None` when the parameter is computed.
    pub sig_ty: Option<String>,
    /// Expression passed to the call helper.
    pub arg: String,
    pub nullable: bool,
    /// `out_value`: pointee type; `length`: the length's integer type.
    pub ty: String,
    /// `length`: `Option<usize>` expressions of the slices it counts.
    pub sources: Vec<String>,
    /// `out_buffer`: bytes to allocate when no size function reports one.
    pub capacity: u32,
    /// `out_buffer`: the two-call size query.
    pub size_call: Option<SizeCall>,
    pub string: bool,
    /// `selected_out` / `selected_in`: the selector expression and the member table as
    /// `(value, bytes, sized)` tuples; `selected_len`: the local holding the value's size.
    pub selector: String,
    pub members: String,
    pub size_local: String,
}

#[derive(Serialize)]
pub(super) struct SizeCall {
    pub symbol: String,
    pub size_ty: String,
    pub args: Vec<String>,
}

/// Converts a pointer expression of const-ness `have` to const-ness `want`.
fn fit(expr: String, have_const: bool, want_const: bool) -> String {
    match (have_const, want_const) {
        (true, false) => format!("{expr}.cast_mut()"),
        (false, true) => format!("{expr}.cast_const()"),
        _ => expr,
    }
}

/// The typed view of `f`, plus reasons for every parameter that fell back to a raw pointer.
pub(super) fn typed(ctx: &Ctx, f: &Function, status: &str) -> (TypedFn, Vec<String>) {
    let mut notes = Vec::new();
    // The IR decides (`passes::shape`); `promise` only cross-checks what this view had to leave raw.
    let is_unsafe = f.needs_unsafe;
    let mut promise = false;
    let mut params: Vec<TParam> = Vec::new();
    let mut outputs = Vec::new();
    for p in &f.params {
        let name = p.names.rust.clone();
        let local = format!("__{}", bare(&name));
        let c_ty = ctx.rust(&p.ty);
        let ptr = p.ty.pointee().map(|(t, c)| (t.clone(), c));
        let pointee_ok = |t: &Type| !t.is_void();
        let mut tp = TParam { name: name.clone(), local: local.clone(), nullable: p.nullable, ..Default::default() };
        let raw = |tp: &mut TParam| {
            tp.kind = TKind::Value;
            tp.sig_ty = Some(c_ty.clone());
            tp.arg = name.clone();
        };
        match (&p.role, &ptr) {
            (Role::SelectedValue { selector, .. }, Some((_, c))) => {
                let sel = f.param(selector).map(|q| q.names.rust.clone()).unwrap_or_default();
                tp.selector = format!("{sel}.0 as i64");
                tp.members = selected_members(ctx, f, selector);
                if p.direction == Direction::In {
                    tp.kind = TKind::SelectedIn;
                    tp.sig_ty = Some("&T".into());
                    tp.arg = fit(format!("core::ptr::from_ref({name}).cast::<c_void>()"), true, *c);
                } else {
                    tp.kind = TKind::SelectedOut;
                    tp.arg = fit(format!("{local}.as_mut_ptr().cast::<c_void>()"), false, *c);
                    outputs.push(format!("unsafe {{ {local}.assume_init() }}"));
                }
            }
            (Role::Length { of }, _) if f.param(of).is_some_and(|q| matches!(q.role, Role::SelectedValue { .. })) => {
                let of_local = f.param(of).map(|q| format!("__{}", bare(&q.names.rust))).unwrap_or_default();
                tp.kind = TKind::SelectedLen;
                tp.size_local = format!("{of_local}_size");
                tp.arg = match &p.ty {
                    Type::Pointer { .. } => format!("core::ptr::addr_of_mut!({local})"),
                    _ => format!("{of_local}_size as _"),
                };
            }
            (Role::Value | Role::Callback, _) => raw(&mut tp),
            (Role::HostPtr | Role::Opaque | Role::UserData | Role::SelectedValues { .. }, _) => raw(&mut tp),
            (Role::InRef, Some((t, c))) if pointee_ok(t) => {
                let t = ctx.rust(t);
                tp.kind = TKind::InRef;
                if p.nullable {
                    tp.sig_ty = Some(format!("Option<&{t}>"));
                    tp.arg = fit(format!("{name}.map_or(core::ptr::null(), |r| r as *const {t})"), true, *c);
                } else {
                    tp.sig_ty = Some(format!("&{t}"));
                    tp.arg = fit(format!("core::ptr::from_ref({name})"), true, *c);
                }
            }
            (Role::InOutRef, Some((t, c))) if pointee_ok(t) => {
                let t = ctx.rust(t);
                tp.kind = TKind::InOutRef;
                if p.nullable {
                    tp.sig_ty = Some(format!("Option<&mut {t}>"));
                    tp.arg = fit(format!("{name}.map_or(core::ptr::null_mut(), |r| r as *mut {t})"), false, *c);
                } else {
                    tp.sig_ty = Some(format!("&mut {t}"));
                    tp.arg = fit(format!("core::ptr::from_mut({name})"), false, *c);
                }
            }
            (Role::OutValue, Some((t, c))) if pointee_ok(t) => {
                tp.kind = TKind::OutValue;
                tp.ty = ctx.rust(t);
                tp.arg = fit(format!("{local}.as_mut_ptr()"), false, *c);
                outputs.push(format!("unsafe {{ {local}.assume_init() }}"));
            }
            (Role::CStrIn, Some((t, c))) if Ctx::is_char(t) => {
                tp.kind = TKind::CstrIn;
                if p.nullable {
                    tp.sig_ty = Some("Option<&CStr>".into());
                    tp.arg = fit(format!("{name}.map_or(core::ptr::null(), |s| s.as_ptr())"), true, *c);
                } else {
                    tp.sig_ty = Some("&CStr".into());
                    tp.arg = fit(format!("{name}.as_ptr()"), true, *c);
                }
            }
            (Role::CStrOut, Some((Type::Pointer { pointee, .. }, _))) if Ctx::is_char(pointee) => {
                tp.kind = TKind::CstrOut;
                tp.arg = format!("core::ptr::addr_of_mut!({local}).cast()");
                outputs.push(format!("crate::util::cstr_to_string({local})"));
            }
            (Role::InArray { len }, Some((t, c))) if pointee_ok(t) => {
                let is_cstr = matches!(t, Type::Pointer { pointee, is_const: true } if Ctx::is_char(pointee));
                if is_cstr {
                    tp.kind = TKind::InArrayCstr;
                    tp.sig_ty = Some(if p.nullable { "Option<&[&CStr]>".into() } else { "&[&CStr]".into() });
                    tp.arg = if p.nullable {
                        fit(format!("{local}.as_ref().map_or(core::ptr::null(), |v| v.as_ptr())"), true, *c)
                    } else {
                        fit(format!("{local}.as_ptr()"), true, *c)
                    };
                } else {
                    let t = ctx.rust(t);
                    tp.kind = TKind::InArray;
                    if p.nullable {
                        tp.sig_ty = Some(format!("Option<&[{t}]>"));
                        tp.arg = fit(format!("{name}.map_or(core::ptr::null(), |s| s.as_ptr())"), true, *c);
                    } else {
                        tp.sig_ty = Some(format!("&[{t}]"));
                        tp.arg = fit(format!("{name}.as_ptr()"), true, *c);
                    }
                }
                if !len_is_computed(f, len.as_deref()) {
                    promise = true;
                }
            }
            (Role::OutArray { len }, Some((t, c))) if pointee_ok(t) => {
                let t = ctx.rust(t);
                tp.kind = TKind::OutArray;
                if p.nullable {
                    tp.sig_ty = Some(format!("Option<&mut [{t}]>"));
                    tp.arg = fit(format!("{name}.map_or(core::ptr::null_mut(), |s| s.as_mut_ptr())"), false, *c);
                } else {
                    tp.sig_ty = Some(format!("&mut [{t}]"));
                    tp.arg = fit(format!("{name}.as_mut_ptr()"), false, *c);
                }
                if !len_is_computed(f, len.as_deref()) {
                    promise = true;
                }
            }
            (Role::OutBuffer { len, string, size_from, capacity }, Some((t, false))) if t.is_void() || prim_byte(t) => {
                tp.kind = TKind::OutBuffer;
                tp.string = *string;
                tp.capacity = capacity.unwrap_or(256).max(1);
                tp.arg = format!("{local}.as_mut_ptr().cast()");
                if let Some(sf) = size_from {
                    match size_call(ctx, f, sf) {
                        Ok(call) => tp.size_call = Some(call),
                        Err(why) => notes.push(format!("{}: {why}; allocates {} bytes instead", p.name, tp.capacity)),
                    }
                } else if len.is_none() && capacity.is_none() {
                    // Nothing bounds what the callee writes.
                    promise = true;
                }
                outputs.push(if *string { format!("crate::util::buf_to_string({local})") } else { local.clone() });
            }
            (Role::Length { .. }, _) => {
                let sources = length_sources(f, &p.name);
                if sources.is_empty() || !matches!(p.ty, Type::Prim { .. } | Type::Named { .. }) {
                    notes.push(format!("{}: length of nothing typed; passed through", p.name));
                    raw(&mut tp);
                } else {
                    tp.kind = TKind::Length;
                    tp.ty = c_ty.clone();
                    tp.sources = sources;
                    tp.arg = local.clone();
                }
            }
            (role, _) => {
                notes.push(format!("{}: role {role:?} does not fit C type `{}`; raw pointer", p.name, p.ty.c_decl("")));
                raw(&mut tp);
            }
        }
        if tp.sig_ty.as_deref().is_some_and(|t| t.contains('*')) && tp.kind == TKind::Value && !matches!(p.role, Role::Callback) {
            promise = true;
        }
        params.push(tp);
    }
    if promise && !is_unsafe {
        notes.push("a raw pointer or unchecked count in a fn the IR calls safe (passes::shape disagrees)".into());
    }
    let returns = match f.returns {
        ReturnShape::Status => Returns::Status,
        ReturnShape::Void => Returns::Void,
        ReturnShape::Value => {
            let is_cstr = matches!(&f.ret, Type::Pointer { pointee, is_const: true } if Ctx::is_char(pointee));
            if is_cstr {
                outputs.insert(0, "crate::util::static_cstr(__r)".into());
            } else {
                outputs.insert(0, "__r".into());
            }
            Returns::Value
        }
    };
    // Status-returning functions whose status type is not the library's fall back to value.
    let returns = if returns == Returns::Status && !matches!(&f.ret, Type::Named { name } if name == status) {
        notes.push(format!("returns {} rather than {status}", f.ret.c_decl("")));
        outputs.insert(0, "__r".into());
        Returns::Value
    } else {
        returns
    };
    let out_types: Vec<String> = output_types(ctx, f, &params, returns);
    let inner = match out_types.len() {
        0 => "()".to_string(),
        1 => out_types[0].clone(),
        _ => format!("({})", out_types.join(", ")),
    };
    let mut doc = docs::lines(&f.doc);
    if is_unsafe {
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push("# Safety".into());
        doc.push(String::new());
        doc.push("Raw pointers, callbacks and counts not derived from a slice must be valid as the C API above documents.".into());
    }
    let sig = params.iter().filter_map(|p| p.sig_ty.as_ref().map(|t| format!("{}: {t}", p.name))).collect();
    let view = TypedFn {
        sig,
        name: f.names.rust.clone(),
        c_name: f.name.clone(),
        symbol: f.symbol.clone(),
        doc,
        deprecated: f.deprecated.as_ref().map(|d| docs::str_literal(d)),
        is_unsafe,
        generics: if params.iter().any(|p| matches!(p.kind, TKind::SelectedIn | TKind::SelectedOut)) {
            "<T: crate::Plain>".into()
        } else {
            String::new()
        },
        params,
        returns,
        ret_ty: format!("Result<{inner}, Error>"),
        outputs,
    };
    (view, notes)
}

/// `&[(member value, bytes, sized)]` of the selector's member type table.
fn selected_members(ctx: &Ctx, f: &Function, selector: &str) -> String {
    let table = f.param(selector).and_then(|q| match ctx.lib.resolve(&q.ty) {
        crate::ir::Resolved::Enum(e) => ctx.lib.value_table(&e.name),
        _ => None,
    });
    let items: Vec<String> = table
        .map(|t| {
            t.members
                .iter()
                .map(|m| match m.count {
                    ValueCount::One => format!("({}, {}, false)", m.value, m.size),
                    ValueCount::Fixed { n } => format!("({}, {}, false)", m.value, m.size * u64::from(n)),
                    ValueCount::Sized => format!("({}, {}, true)", m.value, m.size),
                })
                .collect()
        })
        .unwrap_or_default();
    format!("&[{}]", items.join(", "))
}

fn prim_byte(t: &Type) -> bool {
    matches!(t, Type::Prim { prim: Prim::Char | Prim::SChar | Prim::UChar | Prim::U8 | Prim::I8 })
}

/// True when the count parameter `len` is computed from slices (so the callee cannot overrun).
fn len_is_computed(f: &Function, len: Option<&str>) -> bool {
    len.and_then(|l| f.param(l)).is_some_and(|p| matches!(p.role, Role::Length { .. }))
}

/// `Option<usize>` expressions for the slices a `Length` parameter counts.
fn length_sources(f: &Function, len_name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for q in &f.params {
        let qn = q.names.rust.clone();
        let local = format!("__{}", bare(&qn));
        match &q.role {
            Role::InArray { len: Some(l) } | Role::OutArray { len: Some(l) } if l == len_name => {
                if q.ty.pointee().is_none_or(|(t, _)| t.is_void()) {
                    continue;
                }
                out.push(if q.nullable { format!("{qn}.as_ref().map(|s| s.len())") } else { format!("Some({qn}.len())") });
            }
            Role::OutBuffer { len: Some(l), .. } if l == len_name => out.push(format!("Some({local}.len())")),
            _ => {}
        }
    }
    out
}

/// The size query of a two-call pair: every parameter of the size function is either its one
/// out-value (the size) or a same-named by-value parameter of `f`.
fn size_call(ctx: &Ctx, f: &Function, size_fn: &str) -> Result<SizeCall, String> {
    let s = ctx.lib.function(size_fn).ok_or_else(|| format!("size function {size_fn} not found"))?;
    let mut size_ty = None;
    let mut args = Vec::new();
    for q in &s.params {
        match (&q.role, q.ty.pointee()) {
            (Role::OutValue, Some((t, _))) if size_ty.is_none() => {
                size_ty = Some(ctx.rust(t));
                args.push("__size.as_mut_ptr()".to_string());
            }
            _ => {
                let mine = f.param(&q.name).filter(|p| matches!(p.role, Role::Value) && p.ty == q.ty);
                let Some(p) = mine else {
                    return Err(format!("{size_fn} parameter {} has no match in {}", q.name, f.name));
                };
                args.push(p.names.rust.clone());
            }
        }
    }
    let size_ty = size_ty.ok_or_else(|| format!("{size_fn} returns no size"))?;
    if !matches!(s.ret, Type::Named { .. }) || s.returns != ReturnShape::Status {
        return Err(format!("{size_fn} does not return a status"));
    }
    Ok(SizeCall { symbol: s.symbol.clone(), size_ty, args })
}

fn output_types(ctx: &Ctx, f: &Function, params: &[TParam], returns: Returns) -> Vec<String> {
    let mut out = Vec::new();
    if returns == Returns::Value {
        let is_cstr = matches!(&f.ret, Type::Pointer { pointee, is_const: true } if Ctx::is_char(pointee));
        out.push(if is_cstr { "&'static CStr".to_string() } else { ctx.rust(&f.ret) });
    }
    for p in params {
        match p.kind {
            TKind::OutValue => out.push(p.ty.clone()),
            TKind::SelectedOut => out.push("T".into()),
            TKind::CstrOut => out.push("String".into()),
            TKind::OutBuffer => out.push(if p.string { "String".into() } else { "Vec<u8>".into() }),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Library, LibraryKind, Names, Param};
    use crate::passes::build;

    fn param(name: &str, ty: Type, role: Role, nullable: bool) -> Param {
        let mut p = build::param(name, ty, role);
        p.direction = Direction::In;
        p.nullable = nullable;
        p.names = Names { rust: ident(&heck::ToSnakeCase::to_snake_case(name)), python: name.into() };
        p
    }

    fn function(name: &str, params: Vec<Param>) -> Function {
        let mut f = build::function(name, params);
        f.names = Names { rust: "f".into(), python: name.into() };
        f
    }

    #[test]
    fn shared_length_counts_every_slice_and_outputs_form_a_tuple() {
        let cstr_array = Type::ptr(Type::ptr(Type::prim(Prim::Char), true), true);
        let f = function(
            "cuThing",
            vec![
                param("out", Type::ptr(Type::prim(Prim::Int), false), Role::OutValue, false),
                param("n", Type::prim(Prim::UInt), Role::Length { of: "names".into() }, false),
                param("names", cstr_array, Role::InArray { len: Some("n".into()) }, false),
                param("values", Type::ptr(Type::prim(Prim::Int), false), Role::InArray { len: Some("n".into()) }, true),
                param("name", Type::ptr(Type::ptr(Type::prim(Prim::Char), true), false), Role::CStrOut, false),
            ],
        );
        let lib = Library::new(LibraryKind::Driver);
        let (t, notes) = typed(&Ctx::new(&lib), &f, "CUresult");
        assert!(notes.is_empty(), "{notes:?}");
        assert!(!t.is_unsafe);
        assert_eq!(t.sig, vec!["names: &[&CStr]", "values: Option<&[c_int]>"]);
        assert_eq!(t.ret_ty, "Result<(c_int, String), Error>");
        let n = &t.params[1];
        assert_eq!(n.kind, TKind::Length);
        assert_eq!(n.sources, vec!["Some(names.len())", "values.as_ref().map(|s| s.len())"]);
        assert_eq!(t.params[3].arg, "values.map_or(core::ptr::null(), |s| s.as_ptr()).cast_mut()");
    }

    #[test]
    fn unbounded_raw_pointers_make_the_fn_unsafe() {
        let f = function(
            "cuRaw",
            vec![param("dims", Type::ptr(Type::prim(Prim::U64), true), Role::InArray { len: None }, false)],
        );
        let lib = Library::new(LibraryKind::Driver);
        // The renderer prints the IR's decision and reports a raw pointer the IR calls safe.
        let (t, notes) = typed(&Ctx::new(&lib), &f, "CUresult");
        assert!(!t.is_unsafe);
        assert!(notes.iter().any(|n| n.contains("passes::shape disagrees")), "{notes:?}");
        let mut f = f;
        f.needs_unsafe = f.params.iter().any(|p| crate::passes::shape::caller_promise(&f, p));
        let (t, notes) = typed(&Ctx::new(&lib), &f, "CUresult");
        assert!(t.is_unsafe, "{notes:?}");
        assert!(notes.is_empty(), "{notes:?}");
        assert!(t.doc.iter().any(|l| l == "# Safety"));
    }
}
