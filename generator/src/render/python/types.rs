//! View models of enums, records, handle classes and constants.

use crate::ir::{
    Enum, Field, Library, MacroValue, Prim, Record, RecordAccess, RecordKind, Resolved, TraceClass, Type, Typedef, TypedefKind,
};
use crate::profile::AddressInts;
use serde::Serialize;

#[derive(Serialize, Clone)]
pub struct HandleView {
    /// Python class name (`CUdevice`; the `_vN`-free alias when the header has one).
    pub name: String,
    /// The typedef the IR calls a handle (`CUdevice_v1`).
    pub ir_name: String,
    /// Other names of the same class (`CUdevice_v1`).
    pub aliases: Vec<String>,
    /// Pointer handle (`CUcontext`, repr in hex) or integer handle (`CUdevice`).
    pub pointer: bool,
    pub bits: u32,
    /// The value is an address of memory: the tracer's device pointer class (`[trace.handles]`),
    /// so a `void *` parameter takes the value itself (`handles::address_value`).
    pub address: bool,
    /// A signed value: a signed integer handle, or a pointer handle of a module whose addresses
    /// are `intptr_t` ([`AddressInts::IntPtr`]).
    pub signed: bool,
    /// Our handle classes that stand for this one (`CUkernel` for `CUfunction`).
    pub stand_ins: Vec<String>,
    /// NVIDIA's classes of the same C type (`cuda.bindings.runtime.cudaStream_t`).
    pub foreign: Vec<String>,
    /// Another library's class this handle is (`driver::CUstream` for `cudaStream_t`: the IR's
    /// `SharedHandle`), by its module and class name; empty when the class is this module's own.
    pub shared: String,
}

#[derive(Serialize)]
pub struct EnumView {
    pub name: String,
    pub members: Vec<(String, i64)>,
}

#[derive(Serialize)]
pub struct RecordView {
    pub name: String,
    pub union: bool,
    pub size: u64,
    pub fields: Vec<FieldView>,
    /// Fields of anonymous members, reachable on this record (stubs).
    pub promoted: Vec<FieldView>,
}

#[derive(Serialize)]
pub struct FieldView {
    /// Python name; a private one (`_cg_reserved`) keeps the member in the C layout only.
    pub name: String,
    /// A property of the class (printed, in the stubs).
    pub public: bool,
    /// Python literal of the field's type spec, decoded by `cudagen._classes`.
    pub spec: String,
    /// Type in the `.pyi` stub.
    pub stub: String,
    pub anonymous: bool,
    pub bits: Option<u32>,
}

/// A typedef that is neither a handle, enum nor record but a class in cuda.bindings: integer
/// aliases (`cuuint32_t`) and callbacks (`CUhostFn`), holding one C value.
#[derive(Serialize)]
pub struct TypedefClassView {
    pub name: String,
    /// Function or object pointer (repr in hex) or unsigned integer.
    pub pointer: bool,
    pub bits: u32,
}

#[derive(Serialize)]
pub struct ConstView {
    pub name: String,
    /// Python expression.
    pub value: String,
    pub stub: String,
}

fn has_version_suffix(name: &str) -> bool {
    match name.rsplit_once("_v") {
        Some((_, n)) => !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()),
        None => false,
    }
}

/// Every opaque and scalar handle typedef, with its aliases.
/// Sets `shared` of the handles that are another library's class (`Library::shared_handles`).
pub fn mark_shared(api: &crate::ir::Api, lib: &Library, views: &mut [HandleView]) {
    for h in views.iter_mut() {
        let Some(s) = lib.shared_handle(&h.ir_name) else { continue };
        let Some(owner) = api.libraries.iter().find(|l| l.kind == s.library) else { continue };
        if let Some(o) = handles(owner).into_iter().find(|o| o.ir_name == s.target) {
            h.shared = format!("{}::{}", s.library.module(), o.name);
        }
    }
}

pub fn handles(lib: &Library) -> Vec<HandleView> {
    let intptr = lib.profile().python.address_ints() == AddressInts::IntPtr;
    let mut out = Vec::new();
    for t in &lib.typedefs {
        let (pointer, prim) = match &t.kind {
            TypedefKind::OpaqueHandle { .. } => (true, Prim::UIntPtr),
            TypedefKind::ScalarHandle { prim } => (false, *prim),
            _ => continue,
        };
        let mut names = vec![t.name.clone()];
        for a in &lib.typedefs {
            if matches!(a.kind, TypedefKind::Alias) && a.target == Type::named(&t.name) {
                names.push(a.name.clone());
            }
        }
        let primary = names.iter().position(|n| !has_version_suffix(n)).unwrap_or(0);
        let name = names.remove(primary);
        let stand_ins = lib.stand_ins(&t.name);
        out.push(HandleView {
            name,
            ir_name: t.name.clone(),
            aliases: names,
            pointer,
            bits: (prim.size() * 8) as u32,
            address: lib.trace.handles.get(&t.name) == Some(&TraceClass::DevicePtr),
            signed: if pointer { intptr } else { prim.is_signed() },
            stand_ins: stand_ins.map(|s| s.handles.clone()).unwrap_or_default(),
            foreign: stand_ins.map(|s| s.foreign.clone()).unwrap_or_default(),
            shared: String::new(),
        });
    }
    // stand-ins by their class names (the static each class is rendered as)
    let class = |ir: &str| out.iter().find(|h| h.ir_name == ir).map(|h| h.name.clone());
    let named: Vec<Vec<String>> = out.iter().map(|h| h.stand_ins.iter().filter_map(|s| class(s)).collect()).collect();
    for (h, n) in out.iter_mut().zip(named) {
        h.stand_ins = n;
    }
    out
}

/// Integer-alias, pointer-alias and callback typedefs, as classes holding their C value.
pub fn typedef_classes(lib: &Library, handles: &[HandleView]) -> Vec<TypedefClassView> {
    let is_handle = |n: &str| handles.iter().any(|h| h.name == n || h.aliases.iter().any(|a| a == n));
    lib.typedefs
        .iter()
        .filter(|t| !is_handle(&t.name))
        .filter_map(|t| typedef_class(lib, t).map(|(pointer, bits)| TypedefClassView { name: t.name.clone(), pointer, bits }))
        .collect()
}

/// Whether typedef `t` gets a class of its own, and its shape: (pointer, bits).
pub fn typedef_class(lib: &Library, t: &Typedef) -> Option<(bool, u32)> {
    crate::passes::python::typedef_class(lib, t)
}

/// Classes whose objects `cuda.bindings.utils.get_cuda_native_handle` is taught to take (their C
/// value): every handle class and the `void *` aliases of interop objects (`EGLImageKHR`).
pub fn native_handles(lib: &Library, handles: &[HandleView], typedef_classes: &[TypedefClassView]) -> Vec<String> {
    let aliases = typedef_classes
        .iter()
        .filter(|t| t.pointer && lib.typedef(&t.name).is_some_and(|d| matches!(d.kind, TypedefKind::Alias)));
    handles.iter().map(|h| h.name.clone()).chain(aliases.map(|t| t.name.clone())).collect()
}

/// The Python class of a handle typedef (by its IR name).
pub fn handle_class<'a>(handles: &'a [HandleView], ir_name: &str) -> Option<&'a HandleView> {
    handles.iter().find(|h| h.ir_name == ir_name)
}

/// Doc text of a module's enums, records and typedef classes, as Python string literals keyed by
/// the table names of `<module>.py`: `cudagen._classes` reads them on the first `__doc__` access,
/// so importing the module loads none of it.
#[derive(Serialize)]
pub struct DocsView {
    /// The class doc, then one doc per member in table order ("" where the header has none),
    /// joined by U+001F.
    pub enums: Vec<(String, String)>,
    /// The record's doc and its fields (`name : type` and the field's doc).
    pub records: Vec<(String, String)>,
    pub typedefs: Vec<(String, String)>,
}

/// `text` as a Python string literal (JSON's escapes are Python's).
fn py_literal(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| "\"\"".into())
}

/// `doc`, or `fallback` when the header has none.
fn or_else(doc: &str, fallback: impl FnOnce() -> String) -> String {
    if doc.trim().is_empty() {
        fallback()
    } else {
        doc.trim_end().to_string()
    }
}

pub fn docs_view(lib: &Library, records: &[RecordView], typedef_classes: &[TypedefClassView]) -> DocsView {
    let enums = lib
        .enums
        .iter()
        .map(|e| {
            let mut parts = vec![or_else(&e.doc.markdown, || format!("Values of the C enum `{}`.", e.name))];
            parts.extend(e.variants.iter().map(|v| v.doc.markdown.trim_end().to_string()));
            (e.name.clone(), py_literal(&parts.join("\u{1f}")))
        })
        .collect();
    let records = records
        .iter()
        .map(|v| {
            let r = lib.records.iter().find(|r| r.name == v.name);
            let mut text = or_else(r.map_or("", |r| r.doc.markdown.as_str()), || {
                format!("The C {} `{}`.", if v.union { "union" } else { "struct" }, v.name)
            });
            let fields: Vec<String> = record_field_docs(lib, r);
            if !fields.is_empty() {
                text.push_str("\n\nAttributes\n----------\n");
                text.push_str(&fields.join("\n"));
            }
            (v.name.clone(), py_literal(&text))
        })
        .collect();
    let typedefs = typedef_classes
        .iter()
        .map(|t| {
            let header = lib.typedef(&t.name).map_or("", |d| d.doc.markdown.trim());
            let what = "One C value: built from an int; `int()` reads it, `getPtr()` is its address.";
            let text = if header.is_empty() { format!("`{}`. {what}", t.name) } else { format!("{header}\n\n{what}") };
            (t.name.clone(), py_literal(&text))
        })
        .collect();
    DocsView { enums, records, typedefs }
}

/// `name : type` and the doc (indented) of each public field of `r`, those of its anonymous
/// members in their place.
fn record_field_docs(lib: &Library, r: Option<&Record>) -> Vec<String> {
    let mut out = Vec::new();
    for f in r.map_or(&[][..], |r| &r.fields[..]) {
        if f.anonymous {
            if let Resolved::Record(inner) = lib.resolve(&f.ty) {
                out.extend(record_field_docs(lib, Some(inner)));
            }
            continue;
        }
        if f.python_private {
            continue;
        }
        let mut line = format!("{} : {}", f.names.python, f.ty.c_decl("").trim_end());
        for l in f.doc.markdown.trim().lines() {
            line.push_str(&format!("\n    {l}"));
        }
        out.push(line);
    }
    out
}

pub fn enum_view(e: &Enum) -> EnumView {
    EnumView { name: e.name.clone(), members: e.variants.iter().map(|v| (v.name.clone(), v.value)).collect() }
}

pub fn ctypes_prim(p: Prim) -> &'static str {
    match p {
        Prim::Void | Prim::UChar | Prim::U8 => "c_ubyte",
        Prim::Bool => "c_bool",
        Prim::Char => "c_char",
        Prim::SChar | Prim::I8 => "c_byte",
        Prim::Short | Prim::I16 => "c_short",
        Prim::UShort | Prim::U16 => "c_ushort",
        Prim::Int | Prim::I32 => "c_int",
        Prim::UInt | Prim::U32 => "c_uint",
        Prim::Long => "c_long",
        Prim::ULong => "c_ulong",
        Prim::LongLong | Prim::I64 => "c_longlong",
        Prim::ULongLong | Prim::U64 => "c_ulonglong",
        Prim::Float => "c_float",
        Prim::Double => "c_double",
        Prim::SizeT | Prim::UIntPtr => "c_size_t",
        Prim::IntPtr => "c_ssize_t",
    }
}

/// (spec, stub type) of a record field: a pointer to handles or records is a list (`l:COUNT:ELEM`,
/// `COUNT` the sibling holding its length or `-`); a kernel's argument pointers (`k:c_void_p`)
/// take what a `kernelParams` argument takes. A record it holds is `r:NAME`, read as a view, or
/// `c:NAME`, read as a copy (the field's [`RecordAccess`]).
fn field_spec(lib: &Library, f: &Field, handles: &[HandleView]) -> (String, String) {
    if f.kernel_params {
        return ("k:c_void_p".into(), "Any".into());
    }
    match lib.resolve(&f.ty) {
        Resolved::Pointer { pointee: elem, .. } if crate::passes::fields::is_element_pointer(lib, &f.ty) => {
            let (s, stub) = spec(lib, elem, handles, f.access);
            (format!("l:{}:{s}", f.count.as_ref().map_or("-", |c| c.field.as_str())), format!("list[{stub}]"))
        }
        _ => spec(lib, &f.ty, handles, f.access),
    }
}

/// A pointer to this is printed in decimal by cuda.bindings: a pointer (`void **kernelParams`) or
/// an integer (`size_t *sizes`); `void *` and `char *` are addresses, printed in hex.
fn decimal_address(lib: &Library, pointee: &Type) -> bool {
    match lib.resolve(pointee) {
        Resolved::Pointer { .. } => true,
        Resolved::Prim(p) => p.is_integer() && !matches!(p, Prim::Char | Prim::SChar | Prim::UChar),
        _ => false,
    }
}

/// (spec, stub type) of a record field type. A typedef with a class of its own (`cuuint64_t`,
/// `CUhostFn`) reads as that class (`t:NAME:CTYPE`); see [`decimal_address`] for `d:c_void_p`.
fn spec(lib: &Library, ty: &Type, handles: &[HandleView], access: Option<RecordAccess>) -> (String, String) {
    if let Some(class) = typedef_spec(lib, ty, handles) {
        return class;
    }
    match lib.resolve(ty) {
        Resolved::Prim(p) => {
            let stub = match p {
                Prim::Float | Prim::Double => "float",
                Prim::Bool => "bool",
                Prim::Char => "bytes",
                _ => "int",
            };
            (ctypes_prim(p).into(), stub.into())
        }
        Resolved::Enum(e) => (format!("e:{}:{}", e.name, ctypes_prim(e.repr)), e.name.clone()),
        Resolved::Record(r) if r.complete => {
            let kind = if access == Some(RecordAccess::Copy) { "c" } else { "r" };
            (format!("{kind}:{}", r.name), r.name.clone())
        }
        Resolved::OpaqueHandle(t) | Resolved::ScalarHandle(t, _) => match handle_class(handles, &t.name) {
            Some(h) => {
                let c = if h.pointer {
                    "c_void_p".to_string()
                } else {
                    ctypes_prim(match (h.bits, h.signed) {
                        (32, true) => Prim::Int,
                        (32, false) => Prim::UInt,
                        (64, true) => Prim::LongLong,
                        _ => Prim::ULongLong,
                    })
                    .to_string()
                };
                (format!("h:{}:{c}", h.name), h.name.clone())
            }
            None => ("c_void_p".into(), "int".into()),
        },
        Resolved::Array { elem, len } => {
            let (s, stub) = spec(lib, elem, handles, access);
            let chars = typedef_spec(lib, elem, handles).is_none() && matches!(lib.resolve(elem), Resolved::Prim(Prim::Char));
            (format!("a:{len}:{s}"), if chars { "bytes".into() } else { format!("list[{stub}]") })
        }
        Resolved::Pointer { pointee, .. } if decimal_address(lib, pointee) => ("d:c_void_p".into(), "int".into()),
        _ => ("c_void_p".into(), "int | None".into()),
    }
}

/// (spec, stub type) of a typedef with a class of its own (`t:NAME:CTYPE`), if `ty` is one.
fn typedef_spec(lib: &Library, ty: &Type, handles: &[HandleView]) -> Option<(String, String)> {
    let Type::Named { name } = ty else { return None };
    let (pointer, bits) =
        lib.typedef(name).filter(|_| handle_class(handles, name).is_none()).and_then(|t| typedef_class(lib, t))?;
    let c = match (pointer, bits) {
        (true, _) => "c_void_p",
        (false, 32) => "c_uint",
        _ => "c_ulonglong",
    };
    Some((format!("t:{name}:{c}"), name.clone()))
}

/// Record -> the Python names of its read-only fields, for the records that have some.
pub fn read_only_fields(lib: &Library) -> Vec<(String, Vec<String>)> {
    lib.records
        .iter()
        .filter(|r| r.complete)
        .map(|r| (r.name.clone(), r.fields.iter().filter(|f| f.read_only).map(|f| f.names.python.clone()).collect::<Vec<_>>()))
        .filter(|(_, fields)| !fields.is_empty())
        .collect()
}

pub fn record_view(lib: &Library, r: &Record, handles: &[HandleView]) -> RecordView {
    RecordView {
        name: r.name.clone(),
        union: r.kind == RecordKind::Union,
        size: r.size,
        fields: r
            .fields
            .iter()
            .map(|f| {
                let (spec, stub) = field_spec(lib, f, handles);
                FieldView {
                    name: f.names.python.clone(),
                    public: !f.python_private,
                    spec,
                    stub,
                    anonymous: f.anonymous,
                    bits: f.bit_width,
                }
            })
            .collect(),
        promoted: r
            .fields
            .iter()
            .filter(|f| f.anonymous)
            .filter_map(|f| match lib.resolve(&f.ty) {
                Resolved::Record(inner) => Some(record_view(lib, inner, handles)),
                _ => None,
            })
            .flat_map(|v| v.fields.into_iter().chain(v.promoted))
            .collect(),
    }
}

pub fn consts(lib: &Library) -> Vec<ConstView> {
    let mut out = Vec::new();
    for m in &lib.macros {
        let (value, stub) = match &m.value {
            MacroValue::Int { value, .. } => (value.to_string(), "int".to_string()),
            MacroValue::EnumConst { value, .. } => (value.to_string(), "int".to_string()),
            MacroValue::Float { value } => (format!("{value:?}"), "float".to_string()),
            MacroValue::Cast { ty, value } => match lib.resolve(ty) {
                Resolved::OpaqueHandle(t) | Resolved::ScalarHandle(t, _) => match handle_class(&handles(lib), &t.name) {
                    Some(h) => {
                        let v = *value as u64;
                        let v: i128 = match (h.signed, h.bits) {
                            (true, 32) => v as u32 as i32 as i128,
                            (true, _) => v as i64 as i128,
                            (false, 32) => (v as u32) as i128,
                            _ => v as i128,
                        };
                        // a plain int, as in cuda.bindings (every handle parameter takes ints)
                        (format!("{v}"), "int".to_string())
                    }
                    None => continue,
                },
                // `((int)-1)` (cudaCpuDeviceId) is -1: the cast's signed type keeps the sign
                Resolved::Prim(p) if p.is_signed() => {
                    let v = *value as u64;
                    let v: i128 = if p.size() == 4 { v as u32 as i32 as i128 } else { v as i64 as i128 };
                    (format!("{v}"), "int".to_string())
                }
                _ => (format!("{}", value & 0xffff_ffff_ffff_ffff), "int".to_string()),
            },
            MacroValue::Str { .. } => continue,
        };
        out.push(ConstView { name: m.name.clone(), value, stub });
    }
    out
}

/// Python class names of records whose IR name carries an ABI version (`CUDA_MEMCPY2D_v2` prints
/// as `CUDA_MEMCPY2D`, its unversioned typedef, as the handle classes do): (IR name, class name).
pub fn record_class_names(lib: &Library) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for r in lib.records.iter().filter(|r| r.complete && has_version_suffix(&r.name)) {
        let plain =
            aliases(lib).into_iter().find(|(a, target)| *target == r.name && !has_version_suffix(a) && Some(a) != r.tag.as_ref());
        if let Some((a, _)) = plain {
            out.push((r.name.clone(), a));
        }
    }
    out
}

/// Typedef names of enums and records that differ from the IR name (`CUDA_MEMCPY2D` ->
/// `CUDA_MEMCPY2D_v2`): (alias, target).
pub fn aliases(lib: &Library) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for t in &lib.typedefs {
        if !matches!(t.kind, TypedefKind::Alias | TypedefKind::RecordAlias { .. } | TypedefKind::EnumAlias { .. }) {
            continue;
        }
        let target = match lib.resolve(&Type::named(&t.name)) {
            Resolved::Enum(e) => e.name.clone(),
            Resolved::Record(r) if r.complete => r.name.clone(),
            _ => continue,
        };
        if target != t.name {
            out.push((t.name.clone(), target));
        }
    }
    // C tags name the same class (`CUDA_MEMCPY2D_st`, `CUlaunchAttributeValue_union`)
    for r in lib.records.iter().filter(|r| r.complete) {
        if let Some(tag) = &r.tag {
            let taken = *tag == r.name
                || lib.records.iter().any(|o| o.name == *tag)
                || lib.typedefs.iter().any(|t| t.name == *tag)
                || out.iter().any(|(a, _)| a == tag);
            if !taken {
                out.push((tag.clone(), r.name.clone()));
            }
        }
    }
    out
}
