//! Caller buffers and their sizes: which host pointer the call reads or writes how many bytes
//! through, so the Python surface can check a buffer's length (and writability) before the call.
//!
//! Rules, in order:
//! - a caller-sized output buffer of the two-call pattern (`nvrtcGetPTX`'s `ptx`, `size_from =
//!   nvrtcGetPTXSize`) is written with as many bytes as that function reports;
//! - a host pointer (`void*`) with a by-value byte count beside it, named `ByteCount`, `bytesize`,
//!   `numbytes`, `dataSize` or `<pointer>Size` (`cuMemcpyDtoH`'s `dstHost`, `cuMemcpyHtoD`'s
//!   `srcHost`, `cuMemHostRegister`'s `p`, `cuParamSetv`'s `ptr`), holds that many bytes. It is
//!   written when the pointee is not `const` and the parameter is a destination (`dst...`), an
//!   output, or documented as receiving a result.
//! - a `const` byte input (`void` or character pointee) whose array length is a by-value
//!   parameter (`nvJitLinkAddData`'s `data` of `size` bytes, `nvvmAddModuleToProgram`'s `buffer`)
//!   is read for that many bytes: a larger size than the buffer, or None with a size, would read
//!   past it.
//! - every other non-`const` pointer is written when it is an output (`Param::writes`).

use crate::ir::{Direction, Function, Library, Param, Role, SizeFrom, SizeLink, Type};

/// Names of by-value parameters that give the byte size of the host pointer beside them.
const BYTE_COUNTS: [&str; 4] = ["ByteCount", "bytesize", "numbytes", "dataSize"];

pub fn run(lib: &mut Library) {
    for f in &mut lib.functions {
        let links: Vec<Option<SizeLink>> = f.params.iter().map(|p| link(f, p)).collect();
        for (p, l) in f.params.iter_mut().zip(links) {
            p.writes = l.as_ref().map_or_else(|| fills(p), |l| l.writes);
            p.size = l;
        }
    }
}

fn link(f: &Function, p: &Param) -> Option<SizeLink> {
    match &p.role {
        Role::OutBuffer { size_from: Some(func), len: None, .. } => {
            Some(SizeLink { from: SizeFrom::Function(func.clone()), writes: true })
        }
        Role::HostPtr => {
            let own = format!("{}Size", p.name);
            let count = f.params.iter().find(|q| by_value(q) && (BYTE_COUNTS.contains(&q.name.as_str()) || q.name == own))?;
            Some(SizeLink { from: SizeFrom::Param(count.name.clone()), writes: writes(p) })
        }
        Role::InArray { len: Some(len) }
            if p.ty.pointee().is_some_and(|(t, is_const)| is_const && (t.is_void() || t.is_byte())) =>
        {
            let count = f.param(len).filter(|q| by_value(q))?;
            Some(SizeLink { from: SizeFrom::Param(count.name.clone()), writes: false })
        }
        _ => None,
    }
}

/// A parameter passed by value (a count, never a pointer to one).
fn by_value(p: &Param) -> bool {
    !matches!(p.ty, Type::Pointer { .. })
}

/// A non-`const` pointer the callee fills (an output or in/out parameter).
fn fills(p: &Param) -> bool {
    matches!(p.ty, Type::Pointer { is_const: false, .. }) && p.direction != Direction::In
}

/// The callee writes through a host pointer.
fn writes(p: &Param) -> bool {
    let Type::Pointer { is_const: false, .. } = p.ty else { return false };
    let doc = p.doc.to_ascii_lowercase();
    p.name.starts_with("dst") || p.direction != Direction::In || doc.contains("return") || doc.contains("result")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Prim;
    use crate::passes::build::{function, input};

    /// The size links of `params` as one function's, by parameter.
    fn links(params: Vec<Param>) -> Vec<Option<SizeLink>> {
        let mut lib = crate::passes::build::library("CUhostFn", vec![function("nvThingAddData", params)]);
        run(&mut lib);
        lib.functions[0].params.iter().map(|p| p.size.clone()).collect()
    }

    fn array(name: &str, pointee: Prim, is_const: bool, len: &str) -> Param {
        input(name, Type::ptr(Type::prim(pointee), is_const), Role::InArray { len: Some(len.into()) }, false)
    }

    fn count(name: &str, ty: Type) -> Param {
        input(name, ty, Role::Length { of: "data".into() }, false)
    }

    #[test]
    fn a_const_byte_input_is_bounded_by_its_by_value_length() {
        let size = Some(SizeLink { from: SizeFrom::Param("size".into()), writes: false });
        for pointee in [Prim::Void, Prim::Char, Prim::UChar, Prim::U8] {
            let got = links(vec![array("data", pointee, true, "size"), count("size", Type::prim(Prim::SizeT))]);
            assert_eq!(got, vec![size.clone(), None], "{pointee:?}");
        }
    }

    #[test]
    fn other_arrays_and_counts_link_no_size() {
        // elements wider than a byte: the count is no byte size
        let ints = links(vec![array("data", Prim::Int, true, "size"), count("size", Type::prim(Prim::SizeT))]);
        // a count the callee writes through
        let by_pointer =
            links(vec![array("data", Prim::Void, true, "size"), count("size", Type::ptr(Type::prim(Prim::SizeT), false))]);
        // a buffer the callee may write (not an input)
        let mutable = links(vec![array("data", Prim::Char, false, "size"), count("size", Type::prim(Prim::SizeT))]);
        assert_eq!([ints, by_pointer, mutable], [vec![None, None], vec![None, None], vec![None, None]]);
    }
}
