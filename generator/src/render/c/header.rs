//! View model of the generated C headers: one per header of the library that declares something
//! (`include/cuda.h`, `include/nvrtc.h`, and beside `cuda.h` its companions `cudaGL.h`,
//! `cudaEGL.h`, `cudaVDPAU.h`, `cudaProfiler.h`), each holding the declarations the IR locates in
//! it. Types located in no header of the library are stand-ins for graphics headers (`GLuint`):
//! a companion includes the real header (`HeaderInfo::includes`) instead of declaring them.
//!
//! C needs every type declared before use, and the IR keeps enums, records and typedefs in
//! separate lists, so the header is laid out in dependency order:
//! 1. `typedef struct tag Name;` for every named record (pointers and typedefs may then use it);
//! 2. enums with their values;
//! 3. typedefs, each after the typedefs it names (opaque handles, scalar handles, callbacks);
//! 4. record definitions, each after the records it contains by value; anonymous nested records
//!    are written inline (`union { ... };`, `struct { ... } res;`) exactly as in NVIDIA's header;
//! 5. macro constants;
//! 6. one prototype per exported ABI symbol (`cuMemAlloc_v2`, `cuMemcpyHtoD_v2_ptds`), then the
//!    `#define cuMemAlloc cuMemAlloc_v2` names NVIDIA's header maps API names with, per-thread
//!    variants behind `CUDA_API_PER_THREAD_DEFAULT_STREAM`.

use super::docs::comment;
use crate::diag::{Error, Result};
use crate::ir::{
    Enum, Export, Field, Function, Library, MacroConst, MacroValue, Record, RecordKind, Type, Typedef, TypedefKind, VariantKind,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Serialize)]
pub(super) struct HeaderView {
    /// `cuda.h`.
    pub file: String,
    /// The library's main header this one builds on (`cuda.h` for `cudaGL.h`); empty for a main header.
    pub parent: String,
    /// Graphics headers included for their types (`GL/gl.h`).
    pub includes: Vec<String>,
    /// Include guard (NVIDIA's own, so code testing it keeps working).
    pub guard: String,
    /// `CUDAGEN_CUDA_H`: defined by the header so programs can tell they build against cudagen.
    pub marker: String,
    pub cuda_version: String,
    /// Calling-convention macro placed before function names (`CUDAAPI`; empty for NVRTC).
    pub callconv: String,
    /// A main header's comment lines (the profile's `c_about`; empty: the generic comment) and
    /// the C lines after its prelude (`c_preamble`).
    pub about: Vec<String>,
    pub preamble: String,
    pub forwards: Vec<ForwardView>,
    pub enums: Vec<EnumView>,
    pub typedefs: Vec<TypedefView>,
    pub records: Vec<RecordView>,
    pub macros: Vec<MacroView>,
    pub protos: Vec<ProtoView>,
    /// API name -> ABI symbol, always.
    pub defines: Vec<DefineView>,
    /// API name -> per-thread symbol when `CUDA_API_PER_THREAD_DEFAULT_STREAM` is defined.
    pub per_thread_defines: Vec<DefineView>,
    /// API name -> ABI symbol otherwise (only for functions that have a per-thread variant).
    pub legacy_defines: Vec<DefineView>,
    /// API name -> ABI symbol unless a macro makes the API names functions of their own
    /// ([`VariantKind::Wrapper`]: `#ifndef NVJITLINK_NO_INLINE`), by macro.
    pub switched_defines: Vec<SwitchedDefines>,
    /// `cuGetProcAddress_v2` is declared: per-thread mode gets NVIDIA's inline `_ptsz` wrapper that
    /// turns `CU_GET_PROC_ADDRESS_DEFAULT` into the per-thread flag (a caller-side rule).
    pub get_proc_ptsz: bool,
}

#[derive(Serialize)]
pub(super) struct ForwardView {
    /// `struct` / `union`.
    pub keyword: &'static str,
    pub tag: String,
    pub name: String,
}

#[derive(Serialize)]
pub(super) struct EnumView {
    pub doc: Vec<String>,
    pub tag: String,
    pub name: String,
    pub variants: Vec<VariantView>,
}

#[derive(Serialize)]
pub(super) struct VariantView {
    pub doc: Vec<String>,
    pub name: String,
    pub value: String,
}

#[derive(Serialize)]
pub(super) struct TypedefView {
    pub doc: Vec<String>,
    /// The whole declaration without `typedef` and `;`: `struct CUctx_st *CUcontext`.
    pub decl: String,
}

#[derive(Serialize)]
pub(super) struct RecordView {
    pub doc: Vec<String>,
    pub keyword: &'static str,
    /// Alignment beyond the fields' (`CUDAGEN_ALIGN(16)` on `float4`); 0 when none.
    pub align: u64,
    /// Tag of a top-level record; empty for an inline anonymous one.
    pub tag: String,
    pub fields: Vec<FieldView>,
    pub name: String,
    /// Macro guarding the definition, shared with NVIDIA's runtime headers (`CU_UUID_HAS_BEEN_DEFINED`;
    /// the profile's `c_record_guards`).
    pub guard: Option<String>,
}

#[derive(Serialize)]
pub(super) struct FieldView {
    pub doc: Vec<String>,
    /// Full declaration without `;` (`CUdeviceptr dstDevice`, `unsigned int flags : 3`); for an
    /// inline record only the declarator after the closing brace (`res`, `` for anonymous).
    pub decl: String,
    /// An anonymous record written in place.
    pub inline: Option<Box<RecordView>>,
}

#[derive(Serialize)]
pub(super) struct MacroView {
    pub doc: Vec<String>,
    pub name: String,
    pub value: String,
}

#[derive(Serialize)]
pub(super) struct ProtoView {
    pub doc: Vec<String>,
    pub deprecated: bool,
    pub ret: String,
    pub symbol: String,
    pub params: String,
}

#[derive(Serialize)]
pub(super) struct DefineView {
    pub name: String,
    pub symbol: String,
}

/// `#define`s written only while the macro `unless` is not defined.
#[derive(Serialize)]
pub(super) struct SwitchedDefines {
    pub unless: String,
    pub defines: Vec<DefineView>,
}

/// The header views of `lib`: its main header first, then each companion that declares something.
pub(super) fn views(lib: &Library, cuda_version: &str) -> Result<Vec<HeaderView>> {
    check_unique_names(lib)?;
    let p = lib.profile();
    let main = lib.headers.first().map(|h| h.file.clone()).unwrap_or_else(|| p.header.to_string());
    let mut first = view(lib, cuda_version, &main, p.c_guard.to_string(), p.c_marker.to_string())?;
    let fill = |a: &String| a.replace("{file}", &main).replace("{cuda_version}", cuda_version);
    first.about = p.c_about.as_ref().map(fill).map_or_else(Vec::new, |a| a.lines().map(str::to_string).collect());
    first.preamble = p.c_preamble.clone();
    let mut out = vec![first];
    for h in lib.headers.iter().skip(1) {
        if h.included_by_main || !declares_anything(lib, &h.file) {
            continue;
        }
        let stem: String = h
            .file
            .trim_end_matches(".h")
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_uppercase() } else { '_' })
            .collect();
        let guard = h.guard.clone().unwrap_or_else(|| format!("CUDAGEN_{stem}_H_GUARD"));
        let mut v = view(lib, cuda_version, &h.file, guard, format!("CUDAGEN_{stem}_H"))?;
        v.parent = main.clone();
        v.includes = h.includes.clone();
        out.push(v);
    }
    Ok(out)
}

fn declares_anything(lib: &Library, file: &str) -> bool {
    lib.functions.iter().any(|f| f.location.file == file)
        || lib.enums.iter().any(|e| e.location.file == file)
        || lib.records.iter().any(|r| r.location.file == file)
        || lib.typedefs.iter().any(|t| t.location.file == file)
        || lib.macros.iter().any(|m| m.location.file == file)
}

/// The view of one header: the declarations the IR locates in `file`. The main header also takes
/// what is located in no header of the library's (a fixture's or an older parse's items) or in a
/// header it includes (`HeaderInfo::included_by_main`).
fn view(lib: &Library, cuda_version: &str, file: &str, guard: String, marker: String) -> Result<HeaderView> {
    let is_main = lib.headers.first().is_none_or(|h| h.file == file);
    let stand_ins: BTreeSet<String> =
        lib.headers.iter().flat_map(|h| &h.includes).map(|i| i.rsplit('/').next().unwrap_or(i).to_string()).collect();
    let known = |f: &str| lib.headers.iter().any(|h| h.file == f && !h.included_by_main);
    let here = |loc: &crate::ir::Location| loc.file == file || (is_main && !known(&loc.file) && !stand_ins.contains(&loc.file));
    let anon: BTreeMap<&str, &Record> = lib.records.iter().filter(|r| r.anonymous).map(|r| (r.name.as_str(), r)).collect();

    let forwards = lib
        .records
        .iter()
        .filter(|r| here(&r.location))
        .filter(|r| !r.anonymous)
        .map(|r| ForwardView { keyword: keyword(r.kind), tag: tag(r).to_string(), name: r.name.clone() })
        .collect();
    let enums = lib.enums.iter().filter(|e| here(&e.location)).map(enum_view).collect();
    let typedefs = order_typedefs(lib).into_iter().filter(|t| here(&t.location)).map(typedef_view).collect();
    let mut records = Vec::new();
    for r in order_records(lib, &anon).into_iter().filter(|r| here(&r.location)) {
        records.push(record_view(lib, r, &anon, 0)?);
    }
    let macros = lib.macros.iter().filter(|m| here(&m.location)).map(macro_view).collect();

    let functions = Prototypes::of(lib.functions.iter().filter(|f| here(&f.location)));
    let get_proc_ptsz = is_main && lib.functions.iter().any(|f| f.export == Export::Resolver { ptsz_wrapper: true });
    Ok(HeaderView {
        get_proc_ptsz,
        file: file.to_string(),
        parent: String::new(),
        includes: Vec::new(),
        guard,
        marker,
        cuda_version: cuda_version.into(),
        callconv: lib.profile().callconv.to_string(),
        about: Vec::new(),
        preamble: String::new(),
        forwards,
        enums,
        typedefs,
        records,
        macros,
        protos: functions.protos,
        defines: functions.defines,
        per_thread_defines: functions.per_thread,
        legacy_defines: functions.legacy,
        switched_defines: functions.switched.into_iter().map(|(unless, defines)| SwitchedDefines { unless, defines }).collect(),
    })
}

/// One prototype per exported symbol, and the `#define`s mapping API names to symbols.
#[derive(Default)]
struct Prototypes {
    protos: Vec<ProtoView>,
    /// API name -> ABI symbol, always; per-thread variants; otherwise (see [`HeaderView`]).
    defines: Vec<DefineView>,
    per_thread: Vec<DefineView>,
    legacy: Vec<DefineView>,
    switched: BTreeMap<String, Vec<DefineView>>,
    seen: BTreeSet<String>,
}

impl Prototypes {
    fn of<'a>(functions: impl Iterator<Item = &'a Function>) -> Self {
        let mut p = Prototypes::default();
        for f in functions {
            p.protos(f);
            p.defines(f);
        }
        p
    }

    fn protos(&mut self, f: &Function) {
        let doc = function_doc(f);
        for symbol in f.all_symbols() {
            if !self.seen.insert(symbol.to_string()) {
                continue;
            }
            self.protos.push(ProtoView {
                doc: match f.variants.iter().find(|v| v.symbol == symbol).map(|v| v.kind) {
                    None => doc.clone(),
                    Some(VariantKind::Release) => {
                        vec![format!("`{}` as an earlier release's header names it (the same ABI as `{}`).", f.name, f.symbol)]
                    }
                    Some(VariantKind::Wrapper) => {
                        vec![format!(
                            "`{}` as a function of its own (the same ABI as `{}`), for builds without the inline wrapper.",
                            f.name, f.symbol
                        )]
                    }
                    Some(_) => vec![format!("Per-thread default stream variant of `{}`.", f.name)],
                },
                deprecated: f.deprecated.is_some(),
                ret: f.ret.c_decl(""),
                symbol: symbol.to_string(),
                params: params(f),
            });
        }
    }

    fn defines(&mut self, f: &Function) {
        let define = |name: &str, symbol: &str| DefineView { name: name.to_string(), symbol: symbol.to_string() };
        match f.variants.iter().find(|v| matches!(v.kind, VariantKind::Ptds | VariantKind::Ptsz)) {
            Some(v) => {
                self.per_thread.push(define(&f.name, &v.symbol));
                self.per_thread.extend(v.also_named.iter().map(|n| define(n, &v.symbol)));
                if f.name != f.symbol {
                    self.legacy.push(define(&f.name, &f.symbol));
                }
            }
            None if f.name == f.symbol => {}
            None => match f.variants.iter().find_map(|v| v.unless.as_ref().filter(|_| v.kind == VariantKind::Wrapper)) {
                Some(unless) => self.switched.entry(unless.clone()).or_default().push(define(&f.name, &f.symbol)),
                None => self.defines.push(define(&f.name, &f.symbol)),
            },
        }
    }
}

pub(super) fn keyword(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Struct => "struct",
        RecordKind::Union => "union",
    }
}

/// The C tag of a named record: its own tag, else its name (`struct CUctx_st`).
pub(super) fn tag(r: &Record) -> &str {
    r.tag.as_deref().unwrap_or(&r.name)
}

/// Enums, records and typedefs share C's ordinary-identifier namespace through their typedef names.
fn check_unique_names(lib: &Library) -> Result<()> {
    let mut seen = BTreeSet::new();
    let names = lib
        .enums
        .iter()
        .map(|e| (&e.name, &e.location))
        .chain(lib.records.iter().filter(|r| !r.anonymous).map(|r| (&r.name, &r.location)))
        .chain(lib.typedefs.iter().map(|t| (&t.name, &t.location)));
    for (name, loc) in names {
        if !seen.insert(name.as_str()) {
            return Err(Error::at(loc.clone(), format!("c surface: `{name}` is declared twice (enum/record/typedef)")));
        }
    }
    Ok(())
}

fn enum_view(e: &Enum) -> EnumView {
    EnumView {
        doc: comment(&e.doc.markdown),
        tag: e.tag.clone().unwrap_or_else(|| e.name.clone()),
        name: e.name.clone(),
        variants: e
            .variants
            .iter()
            .map(|v| VariantView { doc: comment(&v.doc.markdown), name: v.name.clone(), value: enum_value(e, v.value) })
            .collect(),
    }
}

/// Flags and values past `INT_MAX` in hex (as NVIDIA writes them), the rest in decimal.
fn enum_value(e: &Enum, value: i64) -> String {
    if value >= 0 && (e.is_flags || value > i64::from(i32::MAX)) {
        format!("0x{value:x}")
    } else {
        value.to_string()
    }
}

/// Typedefs in IR order, each moved after the typedefs its target names.
fn order_typedefs(lib: &Library) -> Vec<&Typedef> {
    let index: BTreeMap<&str, usize> = lib.typedefs.iter().enumerate().map(|(i, t)| (t.name.as_str(), i)).collect();
    let deps = |i: usize| -> Vec<usize> {
        let mut names = Vec::new();
        named_in(&lib.typedefs[i].target, true, &mut names);
        names.iter().filter_map(|n| index.get(n.as_str()).copied()).filter(|&j| j != i).collect()
    };
    topo(lib.typedefs.len(), deps).into_iter().map(|i| &lib.typedefs[i]).collect()
}

/// Named records in IR order, each moved after the records it holds by value.
fn order_records<'a>(lib: &'a Library, anon: &BTreeMap<&str, &'a Record>) -> Vec<&'a Record> {
    let top: Vec<&Record> = lib.records.iter().filter(|r| !r.anonymous && r.complete).collect();
    let index: BTreeMap<&str, usize> = top.iter().enumerate().map(|(i, r)| (r.name.as_str(), i)).collect();
    let deps = |i: usize| -> Vec<usize> {
        let mut names = Vec::new();
        by_value_names(top[i], anon, &mut names, 0);
        names
            .iter()
            .filter_map(|n| resolve_record(lib, n))
            .filter_map(|n| index.get(n.as_str()).copied())
            .filter(|&j| j != i)
            .collect()
    };
    topo(top.len(), deps).into_iter().map(|i| top[i]).collect()
}

/// Names a record's fields use by value (inline anonymous records included).
fn by_value_names(r: &Record, anon: &BTreeMap<&str, &Record>, out: &mut Vec<String>, depth: usize) {
    for f in &r.fields {
        named_in(&f.ty, false, out);
        if let Some(inner) = inline_record(&f.ty, anon) {
            if depth < 16 {
                by_value_names(inner, anon, out, depth + 1);
            }
        }
    }
}

/// `Named` types in `ty`; through pointers and function types only when `all`.
fn named_in(ty: &Type, all: bool, out: &mut Vec<String>) {
    match ty {
        Type::Named { name } => out.push(name.clone()),
        Type::Array { elem, .. } => named_in(elem, all, out),
        Type::Pointer { pointee, .. } if all => named_in(pointee, all, out),
        Type::FnPtr { ret, params } if all => {
            named_in(ret, all, out);
            for p in params {
                named_in(p, all, out);
            }
        }
        _ => {}
    }
}

/// The record `name` stands for by value (through aliases, and an array typedef's element).
fn resolve_record(lib: &Library, name: &str) -> Option<String> {
    use crate::ir::Resolved;
    let ty = Type::named(name);
    let record = match lib.resolve(&ty) {
        Resolved::Array { elem, .. } => lib.resolve(elem),
        other => other,
    };
    match record {
        Resolved::Record(r) => Some(r.name.clone()),
        _ => None,
    }
}

/// Stable topological order: IR order, each item after its dependencies (cycles keep IR order).
fn topo(n: usize, deps: impl Fn(usize) -> Vec<usize>) -> Vec<usize> {
    fn visit(i: usize, deps: &dyn Fn(usize) -> Vec<usize>, state: &mut [u8], out: &mut Vec<usize>) {
        if state[i] != 0 {
            return;
        }
        state[i] = 1;
        for d in deps(i) {
            visit(d, deps, state, out);
        }
        state[i] = 2;
        out.push(i);
    }
    let mut state = vec![0u8; n];
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        visit(i, &deps, &mut state, &mut out);
    }
    out
}

fn typedef_view(t: &Typedef) -> TypedefView {
    let decl = match &t.kind {
        TypedefKind::OpaqueHandle { record } => format!("struct {record} *{}", t.name),
        TypedefKind::Callback { ret, params } => {
            let ps: Vec<String> = params.iter().map(|p| p.ty.c_decl(&p.name)).collect();
            let ps = if ps.is_empty() { "void".to_string() } else { ps.join(", ") };
            ret.c_decl(&format!("(CUDA_CB *{})({ps})", t.name))
        }
        _ => t.target.c_decl(&t.name),
    };
    TypedefView { doc: comment(&t.doc.markdown), decl }
}

/// The anonymous record a field's type names, if any (also through an array).
fn inline_record<'a>(ty: &Type, anon: &BTreeMap<&str, &'a Record>) -> Option<&'a Record> {
    match ty {
        Type::Named { name } => anon.get(name.as_str()).copied(),
        Type::Array { elem, .. } => inline_record(elem, anon),
        _ => None,
    }
}

fn record_view(lib: &Library, r: &Record, anon: &BTreeMap<&str, &Record>, depth: usize) -> Result<RecordView> {
    if depth > 16 {
        return Err(Error::at(r.location.clone(), format!("c surface: record `{}` nests too deeply", r.name)));
    }
    let mut fields = Vec::new();
    for f in &r.fields {
        fields.push(field_view(lib, r, f, anon, depth)?);
    }
    Ok(RecordView {
        doc: comment(&r.doc.markdown),
        keyword: keyword(r.kind),
        align: lib.over_alignment(r).unwrap_or(0),
        tag: if r.anonymous { String::new() } else { tag(r).to_string() },
        fields,
        name: r.name.clone(),
        guard: if r.anonymous {
            None
        } else {
            lib.profile().c_record_guards.iter().find(|(t, _)| *t == tag(r)).map(|(_, g)| g.to_string())
        },
    })
}

fn field_view(lib: &Library, parent: &Record, f: &Field, anon: &BTreeMap<&str, &Record>, depth: usize) -> Result<FieldView> {
    let doc = comment(&f.doc.markdown);
    if let Some(inner) = inline_record(&f.ty, anon) {
        // `struct { ... } name[4]`: the declarator is the field's type with the record elided.
        let decl = if f.anonymous { String::new() } else { array_suffix(&f.ty, &f.name) };
        return Ok(FieldView { doc, decl, inline: Some(Box::new(record_view(lib, inner, anon, depth + 1)?)) });
    }
    if f.anonymous {
        return Err(Error::at(
            parent.location.clone(),
            format!("c surface: anonymous member `{}` of `{}` names no anonymous record", f.name, parent.name),
        ));
    }
    let mut decl = f.ty.c_decl(&f.name);
    if let Some(w) = f.bit_width {
        decl.push_str(&format!(" : {w}"));
    }
    Ok(FieldView { doc, decl, inline: None })
}

fn array_suffix(ty: &Type, name: &str) -> String {
    match ty {
        Type::Array { elem, len } => array_suffix(elem, &format!("{name}[{len}]")),
        _ => name.to_string(),
    }
}

fn macro_view(m: &MacroConst) -> MacroView {
    let value = match &m.value {
        MacroValue::Int { value, unsigned } => int_literal(*value, *unsigned),
        MacroValue::Float { value } => {
            let s = format!("{value:?}");
            if s.contains(['.', 'e', 'E']) || !value.is_finite() {
                s
            } else {
                format!("{s}.0")
            }
        }
        MacroValue::Str { value } => format!("\"{}\"", value.escape_default()),
        MacroValue::Cast { ty, value } => format!("(({}){})", ty.c_decl(""), int_literal(*value, false)),
        MacroValue::EnumConst { variant, .. } => variant.clone(),
    };
    MacroView { doc: comment(&m.doc.markdown), name: m.name.clone(), value }
}

fn int_literal(value: i128, unsigned: bool) -> String {
    let suffix = match (unsigned, value) {
        (true, v) if v > i128::from(u32::MAX) => "ULL",
        (true, _) => "U",
        (false, v) if v > i128::from(i32::MAX) || v < i128::from(i32::MIN) => "LL",
        _ => "",
    };
    if value < 0 {
        format!("({value}{suffix})")
    } else {
        format!("{value}{suffix}")
    }
}

pub(super) fn params(f: &Function) -> String {
    if f.params.is_empty() {
        return "void".into();
    }
    f.params.iter().map(|p| p.ty.c_decl(&p.name)).collect::<Vec<_>>().join(", ")
}

fn function_doc(f: &Function) -> Vec<String> {
    // The docs pass already lists the parameters in the Markdown.
    let mut doc = comment(&f.doc.markdown);
    if f.name != f.symbol {
        if !doc.is_empty() {
            doc.push(String::new());
        }
        doc.push(format!("API name `{}`; ABI symbol `{}`.", f.name, f.symbol));
    }
    if let Some(d) = &f.deprecated {
        doc.extend(comment(&format!("\\deprecated {d}")));
    }
    doc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Doc, Location, Names, Prim};

    fn typedef(name: &str, target: Type, kind: TypedefKind) -> Typedef {
        Typedef { name: name.into(), target, kind, doc: Doc::default(), location: Location::default(), names: Names::default() }
    }

    fn field(name: &str, ty: Type, anonymous: bool) -> Field {
        crate::passes::build::field(name, ty, 0, anonymous)
    }

    fn record(name: &str, kind: RecordKind, anonymous: bool, fields: Vec<Field>) -> Record {
        let tag = (!anonymous).then(|| format!("{name}_st"));
        Record { tag, anonymous, ..crate::passes::build::record(name, kind, fields) }
    }

    /// Aliases listed before their targets, and a record listed before the record it holds by
    /// value (through a typedef), come out after them.
    #[test]
    fn declarations_follow_dependencies() {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.typedefs = vec![
            typedef("CUdeviceptr", Type::named("CUdeviceptr_v2"), TypedefKind::Alias),
            typedef("CUdeviceptr_v2", Type::prim(Prim::ULongLong), TypedefKind::ScalarHandle { prim: Prim::ULongLong }),
            typedef("Inner", Type::named("Inner_v1"), TypedefKind::RecordAlias { target: "Inner_v1".into() }),
        ];
        lib.records = vec![
            record(
                "Outer",
                RecordKind::Struct,
                false,
                vec![
                    field("inner", Type::Array { elem: Box::new(Type::named("Inner")), len: 2 }, false),
                    field("anon0", Type::named("Outer_anon0"), true),
                    field("p", Type::ptr(Type::named("Later"), false), false),
                ],
            ),
            record(
                "Outer_anon0",
                RecordKind::Union,
                true,
                vec![field("a", Type::prim(Prim::Int), false), field("b", Type::named("CUdeviceptr"), false)],
            ),
            record("Later", RecordKind::Struct, false, vec![field("x", Type::prim(Prim::Int), false)]),
            record("Inner_v1", RecordKind::Struct, false, vec![field("x", Type::prim(Prim::Int), false)]),
        ];
        let v = views(&lib, "test").unwrap().remove(0);
        let typedefs: Vec<&str> = v.typedefs.iter().map(|t| t.decl.as_str()).collect();
        assert_eq!(typedefs, ["unsigned long long CUdeviceptr_v2", "CUdeviceptr_v2 CUdeviceptr", "Inner_v1 Inner"]);
        let records: Vec<&str> = v.records.iter().map(|r| r.name.as_str()).collect();
        // `Later` is only pointed to, so it keeps its place after `Outer`.
        assert_eq!(records, ["Inner_v1", "Outer", "Later"]);
        let outer = &v.records[1];
        assert_eq!(outer.fields[0].decl, "Inner inner[2]");
        let inline = outer.fields[1].inline.as_ref().expect("anonymous union written in place");
        assert_eq!((inline.keyword, inline.tag.as_str(), outer.fields[1].decl.as_str()), ("union", "", ""));
        let forwards: Vec<String> = v.forwards.iter().map(|f| format!("{} {} {}", f.keyword, f.tag, f.name)).collect();
        assert_eq!(forwards, ["struct Outer_st Outer", "struct Later_st Later", "struct Inner_v1_st Inner_v1"]);
    }

    #[test]
    fn duplicate_names_are_an_error() {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.typedefs = vec![
            typedef("A", Type::prim(Prim::Int), TypedefKind::Alias),
            typedef("A", Type::prim(Prim::UInt), TypedefKind::Alias),
        ];
        assert!(views(&lib, "test").is_err());
    }

    #[test]
    fn macro_literals() {
        let m = |value| MacroConst { name: "M".into(), value, doc: Doc::default(), location: Location::default() };
        assert_eq!(macro_view(&m(MacroValue::Int { value: 12090, unsigned: false })).value, "12090");
        assert_eq!(macro_view(&m(MacroValue::Int { value: 1, unsigned: true })).value, "1U");
        assert_eq!(macro_view(&m(MacroValue::Int { value: 1 << 40, unsigned: true })).value, "1099511627776ULL");
        assert_eq!(macro_view(&m(MacroValue::Cast { ty: Type::named("CUdevice"), value: -1 })).value, "((CUdevice)(-1))");
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        assert_eq!(macro_view(&m(MacroValue::Cast { ty: void_ptr, value: 0 })).value, "((void *)0)");
        assert_eq!(macro_view(&m(MacroValue::Float { value: 2.0 })).value, "2.0");
    }
}
