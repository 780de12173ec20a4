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

use crate::ir::{DecidedBy, Field, FieldCount, Library, Record, Resolved, Type};

pub fn run(lib: &mut Library) {
    let counts: Vec<Vec<Option<FieldCount>>> =
        lib.records.iter().map(|r| r.fields.iter().map(|f| count(lib, r, f)).collect()).collect();
    for (r, counts) in lib.records.iter_mut().zip(counts) {
        for (f, c) in r.fields.iter_mut().zip(counts) {
            f.count = c;
        }
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
    use crate::ir::{Doc, LibraryKind, Names, Prim, RecordKind};

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
        let mut lib = Library::new(LibraryKind::Driver);
        lib.records.push(record("E", vec![field("x", Type::prim(Prim::Int), "")]));
        lib.records.push(record("R", fields));
        run(&mut lib);
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
    fn no_count_without_a_single_candidate_or_for_other_pointers() {
        // two integer siblings named by the doc: ambiguous, and no name matches
        assert_eq!(counted(vec![elems("p", "uses \\p a and \\p b"), uint("a", ""), uint("b", "")])[0], None);
        // a void pointer is an address, not a list
        let got = counted(vec![field("p", Type::ptr(Type::prim(Prim::Void), false), ""), uint("numP", "")]);
        assert_eq!(got[0], None);
    }
}
