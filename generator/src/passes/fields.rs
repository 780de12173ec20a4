//! Record fields that hold arrays or records, as Python reads them.
//!
//! Counted pointer fields: which sibling of a record field that points to an array of handles or
//! records holds the array's length (`CUlaunchConfig::attrs` / `numAttrs`), so Python reads the
//! field as a list of that many elements, as cuda.bindings does.
//!
//! The count is a non-pointer integer sibling, found by the first rule that names exactly one:
//! - the docs: the sibling's doc names the pointer (`numExtSems`: "supplied in extSemArray and
//!   paramsArray"), or the pointer's doc names the sibling (`phGraph_out`: "If \p size == 2");
//! - the names: `num<Field>` (`numExecAffinityParams`), `<field without its plural s>Count`
//!   (`accessDescCount`) or `count` (`CUDA_BATCH_MEM_OP_NODE_PARAMS_v1::count`, undocumented).
//!
//! A pointer field without one (`CUctxCreateParams::cigParams`) is still a list in Python, of the
//! length it was set with.
//!
//! Record access ([`RecordAccess`]), by the field's kind, as cuda.bindings hands records out: a
//! nested record is a view (`p.srcPos.x = 7` changes `p`); the elements of a fixed array of
//! records are copies (`cudaEglFrame.frame.pPitch[0]`); the elements a pointer field points to
//! (`CUlaunchConfig.attrs[0]`) are views in cuda.bindings 12 and copies from 13 on.

use crate::ir::{DecidedBy, Field, FieldCount, Library, Record, RecordAccess, Resolved, Type};
use crate::passes::naming::python_bindings_major;

pub fn run(lib: &mut Library, cuda_version: Option<u32>) {
    let pointed = if python_bindings_major(cuda_version) >= 13 { RecordAccess::Copy } else { RecordAccess::View };
    let facts: Vec<Vec<(Option<FieldCount>, Option<RecordAccess>)>> =
        lib.records.iter().map(|r| r.fields.iter().map(|f| (count(lib, r, f), access(lib, &f.ty, pointed))).collect()).collect();
    for (r, facts) in lib.records.iter_mut().zip(facts) {
        for (f, (c, a)) in r.fields.iter_mut().zip(facts) {
            f.count = c;
            f.access = a;
        }
    }
}

/// How Python hands out the records a field of type `ty` holds (`pointed`: those a pointer
/// field points to); None for a field without any.
fn access(lib: &Library, ty: &Type, pointed: RecordAccess) -> Option<RecordAccess> {
    let complete = |t: &Type| matches!(lib.resolve(t), Resolved::Record(Record { complete: true, .. }));
    match lib.resolve(ty) {
        Resolved::Record(Record { complete: true, .. }) => Some(RecordAccess::View),
        Resolved::Pointer { pointee, .. } if complete(pointee) => Some(pointed),
        Resolved::Array { elem, .. } if complete(elem) => Some(RecordAccess::Copy),
        _ => None,
    }
}

/// A pointer to handles or complete records: a list field in Python.
pub fn is_element_pointer(lib: &Library, ty: &Type) -> bool {
    match lib.resolve(ty) {
        Resolved::Pointer { pointee, .. } => matches!(
            lib.resolve(pointee),
            Resolved::OpaqueHandle(_) | Resolved::ScalarHandle(..) | Resolved::Record(Record { complete: true, .. })
        ),
        _ => false,
    }
}

fn count(lib: &Library, r: &Record, f: &Field) -> Option<FieldCount> {
    if !is_element_pointer(lib, &f.ty) {
        return None;
    }
    let candidates: Vec<&Field> = r
        .fields
        .iter()
        .filter(|c| c.name != f.name && matches!(lib.resolve(&c.ty), Resolved::Prim(p) if p.is_integer()))
        .collect();
    let one = |hits: Vec<&&Field>| if hits.len() == 1 { Some(hits[0].name.clone()) } else { None };
    let by_doc = one(candidates.iter().filter(|c| mentions(&c.doc.markdown, &f.name)).collect())
        .or_else(|| one(candidates.iter().filter(|c| mentions(&f.doc.markdown, &c.name)).collect()));
    if let Some(field) = by_doc {
        return Some(FieldCount { field, decided_by: DecidedBy::Doc });
    }
    let mut cap = f.name.clone();
    cap[..1].make_ascii_uppercase();
    let names = [format!("num{cap}"), format!("{}Count", f.name.strip_suffix('s').unwrap_or(&f.name)), "count".into()];
    one(candidates.iter().filter(|c| names.contains(&c.name)).collect())
        .map(|field| FieldCount { field, decided_by: DecidedBy::Heuristic })
}

/// `text` has `word` as a whole identifier.
fn mentions(text: &str, word: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).any(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Doc, Names, Prim, RecordKind};

    fn field(name: &str, ty: Type, doc: &str) -> Field {
        let doc = Doc { brief: doc.into(), markdown: doc.into() };
        Field {
            name: name.into(),
            ty,
            offset_bits: 0,
            bit_width: None,
            anonymous: false,
            doc,
            names: Names::default(),
            count: None,
            access: None,
            kernel_params: false,
            python_private: false,
            read_only: false,
        }
    }

    fn record(name: &str, fields: Vec<Field>) -> Record {
        Record {
            name: name.into(),
            tag: None,
            kind: RecordKind::Struct,
            fields,
            complete: true,
            size: 16,
            align: 8,
            anonymous: false,
            doc: Doc::default(),
            location: Default::default(),
            names: Names::default(),
        }
    }

    fn counted(fields: Vec<Field>) -> Vec<Option<(String, DecidedBy)>> {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.records.push(record("E", vec![field("x", Type::prim(Prim::Int), "")]));
        lib.records.push(record("R", fields));
        run(&mut lib, None);
        lib.records[1].fields.iter().map(|f| f.count.clone().map(|c| (c.field, c.decided_by))).collect()
    }

    fn elems(name: &str, doc: &str) -> Field {
        field(name, Type::ptr(Type::named("E"), false), doc)
    }

    fn uint(name: &str, doc: &str) -> Field {
        field(name, Type::prim(Prim::UInt), doc)
    }

    #[test]
    fn a_count_named_in_either_doc_is_taken_from_the_doc() {
        let got = counted(vec![elems("attrs", "List; nullable if ::R::numAttrs == 0"), uint("numAttrs", ""), uint("flags", "")]);
        assert_eq!(got[0], Some(("numAttrs".into(), DecidedBy::Doc)));
        let got = counted(vec![elems("a", ""), elems("b", ""), uint("n", "Number of items in a and b.")]);
        assert_eq!(got[..2], [Some(("n".into(), DecidedBy::Doc)), Some(("n".into(), DecidedBy::Doc))]);
    }

    #[test]
    fn names_decide_when_the_docs_are_silent() {
        let got = counted(vec![elems("accessDescs", "in: descriptors"), uint("accessDescCount", "in: how many")]);
        assert_eq!(got[0], Some(("accessDescCount".into(), DecidedBy::Heuristic)));
        let got = counted(vec![uint("numExecParams", ""), elems("execParams", "")]);
        assert_eq!(got[1], Some(("numExecParams".into(), DecidedBy::Heuristic)));
    }

    #[test]
    fn nested_records_are_views_and_array_elements_copies() {
        let mut lib = Library::new(crate::profile::kind("driver"));
        lib.records.push(record("E", vec![field("x", Type::prim(Prim::Int), "")]));
        let fields = vec![
            field("one", Type::named("E"), ""),
            field("some", Type::Array { elem: Box::new(Type::named("E")), len: 3 }, ""),
            elems("many", ""),
            field("ints", Type::Array { elem: Box::new(Type::prim(Prim::Int)), len: 3 }, ""),
        ];
        lib.records.push(record("R", fields));
        let (view, copy) = (Some(RecordAccess::View), Some(RecordAccess::Copy));
        run(&mut lib, Some(12090));
        let got: Vec<_> = lib.records[1].fields.iter().map(|f| f.access).collect();
        assert_eq!(got, [view, copy, view, None]);
        run(&mut lib, Some(13050)); // cuda.bindings 13 copies the elements a pointer points to
        let got: Vec<_> = lib.records[1].fields.iter().map(|f| f.access).collect();
        assert_eq!(got, [view, copy, copy, None]);
    }

    #[test]
    fn no_count_without_a_single_candidate_or_for_other_pointers() {
        // two integer siblings named by the doc: ambiguous, and no name matches
        assert_eq!(counted(vec![elems("p", "uses \\p a and \\p b"), uint("a", ""), uint("b", "")])[0], None);
        // a void pointer is an address, not a list
        let got = counted(vec![field("p", Type::ptr(Type::prim(Prim::Void), false), ""), uint("numP", "")]);
        assert_eq!(got[0], None);
    }
}
