//! View model of `tests/abi_probe.c`: a C program, rendered from the same IR, that prints the
//! layout of every record, the value of every enum constant and macro, and redeclares every
//! prototype. Built once against the generated headers and once against NVIDIA's, the two
//! outputs must be identical, and the NVIDIA build fails on any prototype that differs.

use super::header::tag;
use crate::ir::{Library, MacroValue, Type};
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Serialize)]
pub(super) struct ProbeView {
    pub includes: Vec<String>,
    pub records: Vec<ProbeRecord>,
    /// Expressions printed as `long long`: enum constants and integer macros.
    pub ints: Vec<String>,
    pub floats: Vec<String>,
    pub strings: Vec<String>,
    /// `ret callconv symbol(params)` of every exported symbol.
    pub protos: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct ProbeRecord {
    /// `struct CUDA_MEMCPY2D_st`.
    pub spelled: String,
    pub fields: Vec<String>,
}

/// `headers`: the rendered headers (NVIDIA has one of each name), in inclusion order.
pub(super) fn view(libs: &[&Library], headers: &[String]) -> ProbeView {
    let mut v = ProbeView {
        includes: headers.to_vec(),
        records: Vec::new(),
        ints: Vec::new(),
        floats: Vec::new(),
        strings: Vec::new(),
        protos: Vec::new(),
    };
    // NVIDIA's cudaVDPAU.h does not include the VDPAU header it needs: the probe includes every
    // graphics header first.
    let graphics: BTreeSet<&String> = libs.iter().flat_map(|l| &l.headers).flat_map(|h| &h.includes).collect();
    v.includes.splice(0..0, graphics.into_iter().cloned());
    let stand_ins: BTreeSet<String> = libs
        .iter()
        .flat_map(|l| &l.headers)
        .flat_map(|h| &h.includes)
        .map(|i| i.rsplit('/').next().unwrap_or(i).to_string())
        .collect();
    for lib in libs {
        for r in lib.records.iter().filter(|r| r.complete && !r.anonymous && !stand_ins.contains(&r.location.file)) {
            let fields = r.fields.iter().filter(|f| !f.anonymous && f.bit_width.is_none()).map(|f| f.name.clone()).collect();
            // A typedef of an unnamed struct has no tag in NVIDIA's header: spell the typedef.
            let spelled = if r.tag.is_some() { format!("{} {}", super::header::keyword(r.kind), tag(r)) } else { r.name.clone() };
            v.records.push(ProbeRecord { spelled, fields });
        }
        for e in lib.enums.iter().filter(|e| !stand_ins.contains(&e.location.file)) {
            v.ints.extend(e.variants.iter().map(|x| x.name.clone()));
        }
        for m in &lib.macros {
            match &m.value {
                MacroValue::Int { .. } | MacroValue::EnumConst { .. } => v.ints.push(m.name.clone()),
                MacroValue::Cast { ty: Type::Pointer { .. }, .. } => v.ints.push(format!("(intptr_t){}", m.name)),
                MacroValue::Cast { .. } => v.ints.push(m.name.clone()),
                MacroValue::Float { .. } => v.floats.push(m.name.clone()),
                MacroValue::Str { .. } => v.strings.push(m.name.clone()),
            }
        }
        let callconv = &lib.profile().callconv;
        let tagged = |n: &str| tagged_name(lib, n);
        let mut seen = std::collections::BTreeSet::new();
        for f in &lib.functions {
            for s in f.all_symbols() {
                if seen.insert(s.to_string()) {
                    v.protos.push(format!("{} {callconv}{s}({})", f.ret.c_decl_with("", &tagged), tagged_params(f, &tagged)));
                }
            }
        }
    }
    v
}

/// A record or enum the header declares by its tag alone (`struct cudaDeviceProp`, `enum
/// cudaLimit`) is spelled with its keyword: NVIDIA's C header has no typedef of that name.
fn tagged_name(lib: &Library, n: &str) -> String {
    let own_tag = |tag: &Option<String>| tag.as_deref() == Some(n);
    if let Some(r) = lib.records.iter().find(|r| r.name == n && own_tag(&r.tag)) {
        let kw = if r.kind == crate::ir::RecordKind::Union { "union" } else { "struct" };
        return format!("{kw} {n}");
    }
    if lib.enums.iter().any(|e| e.name == n && own_tag(&e.tag)) {
        return format!("enum {n}");
    }
    n.to_string()
}

fn tagged_params(f: &crate::ir::Function, tagged: &dyn Fn(&str) -> String) -> String {
    if f.params.is_empty() {
        return "void".into();
    }
    f.params.iter().map(|p| p.ty.c_decl_with(&p.name, tagged)).collect::<Vec<_>>().join(", ")
}
