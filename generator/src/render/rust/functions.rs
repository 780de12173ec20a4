//! Functions -> the raw `sys` layer (one table entry and one `raw_fn!` invocation per exported
//! symbol) and the typed layer (one fn per API name): a table over each parameter's
//! [`ParamKind`] and the function's [`ReturnKind`], both decided by `passes::signature`.

use super::docs;
use super::types::{bare, ident, Ctx};
use crate::ir::{BufferSize, Counted, Function, Param, ParamKind, Pointee, QueryArg, ReturnKind, Unfit, ValueCount, VariantKind};
use crate::render::inert;
use serde::Serialize;

// ---------------------------------------------------------------------------
// sys
// ---------------------------------------------------------------------------

#[derive(Serialize, Clone)]
pub(super) struct SymbolView {
    pub symbol: String,
    pub api_name: String,
    /// The typed fn that wraps this symbol, if any (`mem_alloc`).
    pub typed_name: Option<String>,
    pub index: usize,
    pub proc_name: String,
    pub version: u32,
    pub per_thread: bool,
    /// The exports bound where the library lacks `symbol` ([`Function::fallbacks_of`]).
    pub fallbacks: Vec<String>,
    pub params: Vec<SysParam>,
    /// ` -> CUresult` (empty for void).
    pub ret_suffix: String,
    /// `CUresult`, `*const c_char`, `()`.
    pub ret_ty: String,
    /// The expression a sys fn returns when the entry cannot be loaded (`e` is the `LoadError`).
    pub on_load_error: String,
    /// What the cold path returns if it panicked (see `render::inert`).
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

/// One view per exported symbol of `f` (ABI symbol first, then its per-thread variants).
pub(super) fn symbols(
    ctx: &Ctx,
    f: &Function,
    first_index: usize,
    default_version: u32,
    typed_name: Option<&str>,
) -> Vec<SymbolView> {
    let is_status = f.ret_kind == ReturnKind::Status;
    let mut trace_enums = Vec::new();
    let params: Vec<SysParam> = f
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = ident(&p.name);
            let (trace_arg, trace_word) = ctx.trace_param(p, &name, i, is_status, &mut trace_enums);
            SysParam { trace_arg, trace_word, name, c_name: p.name.clone(), ty: ctx.rust(&p.ty) }
        })
        .collect();
    let (ret_kind, ret_word) = match f.ret_kind {
        ReturnKind::Void => ("crate::trace::Kind::Void".to_string(), "0u64".to_string()),
        kind => ctx.trace_word(&f.ret, "__r", kind == ReturnKind::StaticCstr, &mut trace_enums),
    };
    let template = SymbolView {
        typed_name: typed_name.map(str::to_string),
        symbol: f.symbol.clone(),
        api_name: f.name.clone(),
        index: first_index,
        proc_name: f.proc_name.clone(),
        version: f.version.unwrap_or(default_version),
        per_thread: false,
        fallbacks: f.fallbacks.clone(),
        params,
        ret_suffix: ctx.ret_suffix(&f.ret),
        ret_ty: if f.ret.is_void() { "()".to_string() } else { ctx.rust(&f.ret) },
        on_load_error: inert::on_load_error(f),
        on_panic: inert::on_panic(ctx.lib, f),
        trace_names: f.params.iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(","),
        trace_enums,
        ret_kind,
        ret_word,
        deprecated: f.deprecated.as_ref().map(|d| docs::str_literal(d)),
    };
    let variants = f.variants.iter().enumerate().map(|(i, v)| SymbolView {
        typed_name: None,
        symbol: v.symbol.clone(),
        index: first_index + 1 + i,
        version: v.version.or(f.version).unwrap_or(default_version),
        per_thread: matches!(v.kind, VariantKind::Ptds | VariantKind::Ptsz),
        fallbacks: f.fallbacks_of(&v.symbol).to_vec(),
        ..template.clone()
    });
    let variants: Vec<SymbolView> = variants.collect();
    std::iter::once(template).chain(variants).collect()
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
    /// The byte size of a selected value, from `size_of::<T>()`: by value...
    SelectedLen,
    /// ... or through an in/out `size_t *`.
    SelectedLenRef,
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
    /// `selected_out` / `selected_in`: the selector expression and the member table as
    /// `(value, bytes, sized)` tuples; `selected_len`: the local holding the value's size.
    pub selector: String,
    pub members: String,
    pub size_local: String,
    /// What the parameter adds to the returned values: expression and type.
    #[serde(skip)]
    pub output: Option<(String, String)>,
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

/// The typed view of `f`, plus reasons for every parameter that fell back to a raw pointer
/// (`Function::ret_kind` says whether `f` returns the status enum).
pub(super) fn typed(ctx: &Ctx, f: &Function) -> (TypedFn, Vec<String>) {
    let mut notes = Vec::new();
    let params: Vec<TParam> = f.params.iter().map(|p| param(ctx, f, p, &mut notes)).collect();
    let (returns, ret) = returns(ctx, f);
    let outputs: Vec<String> =
        ret.iter().chain(params.iter().filter_map(|p| p.output.as_ref())).map(|(expr, _)| expr.clone()).collect();
    let inner = match output_types(ctx, f, &params, returns).as_slice() {
        [] => "()".to_string(),
        [ty] => ty.clone(),
        many => format!("({})", many.join(", ")),
    };
    let selected = params.iter().any(|p| matches!(p.kind, TKind::SelectedIn | TKind::SelectedOut));
    let view = TypedFn {
        sig: params.iter().filter_map(|p| p.sig_ty.as_ref().map(|t| format!("{}: {t}", p.name))).collect(),
        outputs,
        name: f.names.rust.clone(),
        c_name: f.name.clone(),
        symbol: f.symbol.clone(),
        doc: doc(f),
        deprecated: f.deprecated.as_ref().map(|d| docs::str_literal(d)),
        is_unsafe: f.needs_unsafe,
        generics: if selected { "<T: crate::Plain>".into() } else { String::new() },
        params,
        returns,
        ret_ty: format!("Result<{inner}, Error>"),
    };
    (view, notes)
}

/// The types of a typed fn's returned values, in order: the call's own value (when `returns`
/// says it is one), then each output parameter's.
pub(super) fn output_types(ctx: &Ctx, f: &Function, params: &[TParam], returns: Returns) -> Vec<String> {
    let call = if returns == Returns::Value { self::returns(ctx, f).1 } else { None };
    call.into_iter().chain(params.iter().filter_map(|p| p.output.clone())).map(|(_, ty)| ty).collect()
}

/// The doc lines, with a `# Safety` section for an `unsafe` fn.
fn doc(f: &Function) -> Vec<String> {
    let mut doc = docs::lines(&f.doc);
    if f.needs_unsafe {
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push("# Safety".into());
        doc.push(String::new());
        doc.extend(safety(f));
    }
    doc
}

/// The `# Safety` lines of an `unsafe` fn: one per reason the IR gives (a list when several).
pub(super) fn safety(f: &Function) -> Vec<String> {
    match f.unsafe_because.as_slice() {
        [] => Vec::new(),
        [one] => vec![one.safety_line()],
        many => many.iter().map(|u| format!("- {}", u.safety_line())).collect(),
    }
}

/// How the call's own result is returned: checked as the status, or a value (expression and type).
fn returns(ctx: &Ctx, f: &Function) -> (Returns, Option<(String, String)>) {
    match f.ret_kind {
        ReturnKind::Status => (Returns::Status, None),
        ReturnKind::Void => (Returns::Void, None),
        ReturnKind::StaticCstr => {
            (Returns::Value, Some(("unsafe { crate::util::static_cstr(__r) }".into(), "&'static CStr".into())))
        }
        ReturnKind::Pointer | ReturnKind::Value => (Returns::Value, Some(("__r".into(), ctx.rust(&f.ret)))),
    }
}

/// The view of one parameter, by its kind; a fallback to a raw pointer adds a note.
fn param(ctx: &Ctx, f: &Function, p: &Param, notes: &mut Vec<String>) -> TParam {
    let name = p.names.rust.clone();
    let tp = TParam { local: format!("__{}", bare(&name)), name, nullable: p.nullable, ..Default::default() };
    match &p.kind {
        ParamKind::Value
        | ParamKind::Callback { .. }
        | ParamKind::UserData { .. }
        | ParamKind::Address { .. }
        | ParamKind::SelectedList { .. } => raw(ctx, p, tp),
        ParamKind::Unfit { why } => {
            notes.push(unfit_note(p, *why));
            raw(ctx, p, tp)
        }
        ParamKind::InRef { pointee, nullable } => reference(ctx, tp, pointee, *nullable, false),
        ParamKind::InOutRef { pointee, nullable } => reference(ctx, tp, pointee, *nullable, true),
        ParamKind::OutValue { pointee, untyped } => out_value(ctx, tp, pointee, *untyped),
        ParamKind::CstrIn { nullable, is_const } => cstr_in(tp, *nullable, *is_const),
        ParamKind::CstrOut => cstr_out(tp),
        ParamKind::InArray { elem, nullable, .. } => slice(ctx, tp, elem, *nullable, false),
        ParamKind::InBytes { nullable, .. } => bytes(tp, *nullable),
        ParamKind::OutArray { elem, nullable, .. } => slice(ctx, tp, elem, *nullable, true),
        ParamKind::CstrArray { nullable, is_const, .. } => cstr_slice(tp, *nullable, *is_const),
        ParamKind::OutBuffer { string, alloc, size } => out_buffer(ctx, f, p, tp, (*string, *alloc), size, notes),
        ParamKind::Length { counts } => length(ctx, f, p, tp, counts),
        ParamKind::SelectedIn { selector, table, is_const } => selected(ctx, f, tp, (selector, table), *is_const, false),
        ParamKind::SelectedOut { selector, table, is_const } => selected(ctx, f, tp, (selector, table), *is_const, true),
        ParamKind::SelectedLen { of, by_pointer } => selected_len(f, tp, of, *by_pointer),
    }
}

fn unfit_note(p: &Param, why: Unfit) -> String {
    match why {
        Unfit::RoleType => format!("{}: role {:?} does not fit C type `{}`; raw pointer", p.name, p.role, p.ty.c_decl("")),
        Unfit::NothingCounted => format!("{}: length of nothing typed; passed through", p.name),
    }
}

/// Passed as is, with its C type.
fn raw(ctx: &Ctx, p: &Param, tp: TParam) -> TParam {
    TParam { kind: TKind::Value, sig_ty: Some(ctx.rust(&p.ty)), arg: tp.name.clone(), ..tp }
}

/// `&T` / `&mut T`, `Option<..>` when nullable.
fn reference(ctx: &Ctx, tp: TParam, pointee: &Pointee, nullable: bool, mutable: bool) -> TParam {
    let (t, name) = (ctx.rust(&pointee.ty), &tp.name);
    let (kind, amp, null, ptr, from) = if mutable {
        (TKind::InOutRef, "&mut ", "null_mut", "*mut", "from_mut")
    } else {
        (TKind::InRef, "&", "null", "*const", "from_ref")
    };
    let (sig, arg) = if nullable {
        (format!("Option<{amp}{t}>"), format!("{name}.map_or(core::ptr::{null}(), |r| r as {ptr} {t})"))
    } else {
        (format!("{amp}{t}"), format!("core::ptr::{from}({name})"))
    };
    TParam { kind, sig_ty: Some(sig), arg: fit(arg, !mutable, pointee.is_const), ..tp }
}

/// `untyped`: the C pointer is `void *`, so the slot's pointer is cast to it.
fn out_value(ctx: &Ctx, tp: TParam, pointee: &Pointee, untyped: bool) -> TParam {
    let local = &tp.local;
    let ptr = if untyped { format!("{local}.as_mut_ptr().cast()") } else { format!("{local}.as_mut_ptr()") };
    let (arg, output) = (fit(ptr, false, pointee.is_const), format!("unsafe {{ {local}.assume_init() }}"));
    let ty = ctx.rust(&pointee.ty);
    TParam { kind: TKind::OutValue, arg, output: Some((output, ty.clone())), ty, ..tp }
}

fn cstr_in(tp: TParam, nullable: bool, is_const: bool) -> TParam {
    let name = &tp.name;
    let (sig, arg) = if nullable {
        ("Option<&CStr>", format!("{name}.map_or(core::ptr::null(), |s| s.as_ptr())"))
    } else {
        ("&CStr", format!("{name}.as_ptr()"))
    };
    TParam { kind: TKind::CstrIn, sig_ty: Some(sig.into()), arg: fit(arg, true, is_const), ..tp }
}

fn cstr_out(tp: TParam) -> TParam {
    let local = &tp.local;
    // SAFETY (in the output): the library wrote a NUL-terminated string it owns, alive here.
    let (arg, output) =
        (format!("core::ptr::addr_of_mut!({local}).cast()"), format!("unsafe {{ crate::util::cstr_to_string({local}) }}"));
    TParam { kind: TKind::CstrOut, arg, output: Some((output, "String".into())), ..tp }
}

/// `&[T]` / `&mut [T]`, `Option<..>` when nullable.
fn slice(ctx: &Ctx, tp: TParam, elem: &Pointee, nullable: bool, mutable: bool) -> TParam {
    let (t, name) = (ctx.rust(&elem.ty), &tp.name);
    let (kind, amp, null, as_ptr) =
        if mutable { (TKind::OutArray, "&mut ", "null_mut", "as_mut_ptr") } else { (TKind::InArray, "&", "null", "as_ptr") };
    let (sig, arg) = if nullable {
        (format!("Option<{amp}[{t}]>"), format!("{name}.map_or(core::ptr::{null}(), |s| s.{as_ptr}())"))
    } else {
        (format!("{amp}[{t}]"), format!("{name}.{as_ptr}()"))
    };
    TParam { kind, sig_ty: Some(sig), arg: fit(arg, !mutable, elem.is_const), ..tp }
}

/// `&[u8]`, `Option<&[u8]>` when nullable: the C pointer (`const void *`, `const char *`) is cast.
fn bytes(tp: TParam, nullable: bool) -> TParam {
    let name = &tp.name;
    let (sig, arg) = if nullable {
        ("Option<&[u8]>", format!("{name}.map_or(core::ptr::null(), |s| s.as_ptr().cast())"))
    } else {
        ("&[u8]", format!("{name}.as_ptr().cast()"))
    };
    TParam { kind: TKind::InArray, sig_ty: Some(sig.into()), arg, ..tp }
}

/// `&[&CStr]`: the pointers are collected into a local (see the template's prelude).
fn cstr_slice(tp: TParam, nullable: bool, is_const: bool) -> TParam {
    let local = &tp.local;
    let (sig, arg) = if nullable {
        ("Option<&[&CStr]>", format!("{local}.as_ref().map_or(core::ptr::null(), |v| v.as_ptr())"))
    } else {
        ("&[&CStr]", format!("{local}.as_ptr()"))
    };
    TParam { kind: TKind::InArrayCstr, sig_ty: Some(sig.into()), arg: fit(arg, true, is_const), ..tp }
}

/// A `Vec<u8>` (or `String`) the fn allocates: as the size query says, else `alloc` bytes.
fn out_buffer(
    ctx: &Ctx,
    f: &Function,
    p: &Param,
    tp: TParam,
    (string, alloc): (bool, u32),
    size: &BufferSize,
    notes: &mut Vec<String>,
) -> TParam {
    let size_call = match size {
        BufferSize::Query { query } => Some(SizeCall {
            symbol: query.symbol.clone(),
            size_ty: ctx.rust(&query.size_ty),
            args: query.args.iter().map(|a| query_arg(f, a)).collect(),
        }),
        BufferSize::BadQuery { why, .. } => {
            notes.push(format!("{}: {why}; allocates {alloc} bytes instead", p.name));
            None
        }
        BufferSize::Count { .. } | BufferSize::Capacity | BufferSize::Unbounded => None,
    };
    let local = &tp.local;
    let output = if string { (format!("crate::util::buf_to_string({local})"), "String") } else { (local.clone(), "Vec<u8>") };
    let arg = format!("{local}.as_mut_ptr().cast()");
    TParam { kind: TKind::OutBuffer, capacity: alloc, size_call, arg, output: Some((output.0, output.1.into())), ..tp }
}

fn query_arg(f: &Function, a: &QueryArg) -> String {
    match a {
        QueryArg::Size => "__size.as_mut_ptr()".into(),
        QueryArg::Param(name) => rust_name(f, name),
    }
}

/// The Rust name of parameter `name` of `f`.
fn rust_name(f: &Function, name: &str) -> String {
    f.param(name).map(|q| q.names.rust.clone()).unwrap_or_default()
}

/// A count computed from the lengths of what it counts.
fn length(ctx: &Ctx, f: &Function, p: &Param, tp: TParam, counts: &[Counted]) -> TParam {
    let sources = counts
        .iter()
        .map(|c| match c {
            Counted::Slice(q) => format!("Some({}.len())", rust_name(f, q)),
            Counted::OptionalSlice(q) => format!("{}.as_ref().map(|s| s.len())", rust_name(f, q)),
            Counted::Buffer(q) => format!("Some(__{}.len())", bare(&rust_name(f, q))),
        })
        .collect();
    TParam { kind: TKind::Length, ty: ctx.rust(&p.ty), sources, arg: tp.local.clone(), ..tp }
}

/// A selected value of the caller's type `T`, checked against the selector's member table.
fn selected(ctx: &Ctx, f: &Function, tp: TParam, (selector, table): (&str, &str), is_const: bool, out: bool) -> TParam {
    let (name, local) = (&tp.name, &tp.local);
    let (kind, sig_ty, arg, output) = if out {
        let output = (format!("unsafe {{ {local}.assume_init() }}"), "T".to_string());
        (TKind::SelectedOut, None, fit(format!("{local}.as_mut_ptr().cast::<c_void>()"), false, is_const), Some(output))
    } else {
        (TKind::SelectedIn, Some("&T".into()), fit(format!("core::ptr::from_ref({name}).cast::<c_void>()"), true, is_const), None)
    };
    let selector = format!("{}.0 as i64", rust_name(f, selector));
    TParam { kind, sig_ty, arg, output, selector, members: members(ctx, table), ..tp }
}

/// `&[(member value, bytes, sized)]` of an enum's member type table.
fn members(ctx: &Ctx, table: &str) -> String {
    let items: Vec<String> = ctx
        .lib
        .value_table(table)
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

/// The size of selected value `of`, from its member's size.
fn selected_len(f: &Function, tp: TParam, of: &str, by_pointer: bool) -> TParam {
    let of_local = format!("__{}", bare(&rust_name(f, of)));
    let (kind, arg) = if by_pointer {
        (TKind::SelectedLenRef, format!("core::ptr::addr_of_mut!({})", tp.local))
    } else {
        (TKind::SelectedLen, format!("{of_local}_size as _"))
    };
    TParam { kind, arg, size_local: format!("{of_local}_size"), ..tp }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Library, Names, Prim, Role, Type};
    use crate::passes::build;

    fn param(name: &str, ty: Type, role: Role, nullable: bool) -> Param {
        let names = Names { rust: ident(&heck::ToSnakeCase::to_snake_case(name)), python: name.into() };
        Param { names, ..build::input(name, ty, role, nullable) }
    }

    /// A library holding `f` after the signature pass.
    fn library(name: &str, params: Vec<Param>) -> Library {
        let mut f = build::function(name, params);
        f.names = Names { rust: "f".into(), python: name.into() };
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.status_enum = Some("CUresult".into());
        lib.functions.push(f);
        crate::passes::status::run(&mut lib).unwrap();
        crate::passes::signature::run(&mut lib).unwrap();
        lib
    }

    #[test]
    fn shared_length_counts_every_slice_and_outputs_form_a_tuple() {
        let cstr_array = Type::ptr(Type::ptr(Type::prim(Prim::Char), true), true);
        let lib = library(
            "cuThing",
            vec![
                param("out", Type::ptr(Type::prim(Prim::Int), false), Role::OutValue, false),
                param("n", Type::prim(Prim::UInt), Role::Length { of: "names".into() }, false),
                param("names", cstr_array, Role::InArray { len: Some("n".into()) }, false),
                param("values", Type::ptr(Type::prim(Prim::Int), false), Role::InArray { len: Some("n".into()) }, true),
                param("name", Type::ptr(Type::ptr(Type::prim(Prim::Char), true), false), Role::CStrOut, false),
            ],
        );
        let (t, notes) = typed(&Ctx::new(&lib), &lib.functions[0]);
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
    fn an_unsafe_fn_documents_its_safety_and_an_unfit_role_is_noted() {
        let lib =
            library("cuRaw", vec![param("dims", Type::ptr(Type::prim(Prim::U64), true), Role::InArray { len: None }, false)]);
        let (t, notes) = typed(&Ctx::new(&lib), &lib.functions[0]);
        assert!(t.is_unsafe && notes.is_empty(), "{notes:?}");
        assert!(t.doc.iter().any(|l| l == "# Safety"));
        let lib = library("cuUnfit", vec![param("p", Type::ptr(Type::prim(Prim::Void), false), Role::InRef, false)]);
        let (t, notes) = typed(&Ctx::new(&lib), &lib.functions[0]);
        assert_eq!((t.params[0].kind, t.sig.as_slice()), (TKind::Value, ["p: *mut c_void".to_string()].as_slice()));
        assert!(notes.iter().any(|n| n.contains("does not fit C type")), "{notes:?}");
    }
}
