//! Parameter direction and role. Sources of truth, in order: annotations (by function and
//! parameter name), the header's `\param` text, type heuristics.

use crate::annotations::{LibraryAnnotations, ParamAnnotation};
use crate::diag::{Error, Errors, Result};
use crate::ir::*;

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    validate_annotations(lib, ann, cuda_version)?;
    let mut errors = Errors::default();
    for i in 0..lib.functions.len() {
        let decided: Vec<(Direction, Role, bool, DecidedBy)> =
            lib.functions[i].params.iter().map(|p| classify(lib, &lib.functions[i], p)).collect();
        for (p, (direction, role, nullable, by)) in lib.functions[i].params.iter_mut().zip(decided) {
            p.direction = direction;
            p.role = role;
            p.nullable = nullable;
            p.decided_by = by;
        }
        link_lengths(lib, i);
        let f = lib.functions[i].clone();
        // The ABI symbol's annotation first: it names one signature, while an API name moves to a
        // newer ABI between releases (13.0's `cuStreamGetCaptureInfo` is `..._v3`, whose
        // annotation is keyed `cuStreamGetCaptureInfo_v3` as its 12.x API name).
        if let Some(pa) = ann.functions.get(&f.symbol).or_else(|| ann.functions.get(&f.name)) {
            // A parameter this release lacks was allowed by its range (`validate_annotations`).
            for (pname, a) in pa.iter().filter(|(pname, _)| f.param(pname).is_some()) {
                if let Err(e) = apply(&mut lib.functions[i], pname, a, ann) {
                    errors.push(e);
                }
            }
            link_lengths(lib, i);
            unlink_stale_lengths(&mut lib.functions[i]);
        }
        if let Err(e) = check_rules(lib, &lib.functions[i], ann) {
            errors.push(e);
        }
    }
    errors.finish()
}

/// Facts every classification must keep, whoever decided it: a `const` pointee is never written,
/// and a selected value's selector is an enum with a member type table.
fn check_rules(lib: &Library, f: &Function, ann: &LibraryAnnotations) -> Result<()> {
    let mut errors = Errors::default();
    for p in &f.params {
        if matches!(p.ty, Type::Pointer { is_const: true, .. }) && p.direction != Direction::In {
            errors.push(Error::at(
                ann.location_of(&f.name),
                format!("`{}.{}` points to const but is classified {:?}", f.name, p.name, p.direction),
            ));
        }
        if let Some(written) = &p.written {
            if let Err(why) = check_written(lib, p, written) {
                errors.push(Error::at(ann.location_of(&f.name), format!("`{}.{}`: writes: {why}", f.name, p.name)));
            }
        }
        let selector = match &p.role {
            Role::SelectedValue { selector, .. } => Some((selector, false)),
            Role::SelectedValues { selectors, .. } => Some((selectors, true)),
            _ => None,
        };
        if let Some((selector, array)) = selector {
            let table = f.param(selector).and_then(|s| {
                let ty = if array { s.ty.pointee().map(|(t, _)| t)? } else { &s.ty };
                match lib.resolve(ty) {
                    Resolved::Enum(e) => lib.value_table(&e.name),
                    _ => None,
                }
            });
            if table.is_none() {
                errors.push(Error::at(
                    ann.location_of(&f.name),
                    format!(
                        "`{}.{}`: selector `{selector}` is not an enum (array) parameter with a value_types table",
                        f.name, p.name
                    ),
                ));
            }
        }
    }
    errors.finish()
}

/// A written type (`writes`) is for an out value of a non-`const` `void *`, and names a type of
/// the header whose size is known.
fn check_written(lib: &Library, p: &Param, written: &Type) -> std::result::Result<(), String> {
    if p.role != Role::OutValue {
        return Err(format!("only an out_value takes a written type (role is {:?})", p.role));
    }
    if !p.ty.pointee().is_some_and(|(t, is_const)| t.is_void() && !is_const) {
        return Err(format!("the C type is `{}`, not `void *` (a typed pointer says what it points to)", p.ty.c_decl("")));
    }
    super::values::type_size(lib, written).map(|_| ())
}

/// A `Length { of }` whose array no longer names it (an annotation changed the array's role)
/// goes back to a plain value.
fn unlink_stale_lengths(f: &mut Function) {
    let referenced: Vec<String> = f
        .params
        .iter()
        .filter_map(|p| match &p.role {
            Role::InArray { len: Some(l) }
            | Role::OutArray { len: Some(l) }
            | Role::OutBuffer { len: Some(l), .. }
            | Role::SelectedValue { len: Some(l), .. } => Some(l.clone()),
            _ => None,
        })
        .collect();
    for p in &mut f.params {
        if matches!(p.role, Role::Length { .. }) && !referenced.contains(&p.name) {
            p.role = Role::Value;
        }
    }
}

/// Every annotation must name a function and parameter of the header; `[since]`/`[until]` hold.
fn validate_annotations(lib: &Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let mut errors = Errors(ann.range_errors(cuda_version, lib));
    for (fname, params) in &ann.functions {
        let Some(f) = lib.functions.iter().find(|f| &f.name == fname || &f.symbol == fname) else {
            if ann.may_be_absent(fname, cuda_version) {
                continue;
            }
            errors.push(Error::at(
                ann.location_of(fname),
                format!("annotation names function `{fname}`, which the header does not declare"),
            ));
            continue;
        };
        for (pname, a) in params {
            if f.param(pname).is_none() && !ann.may_be_absent(&format!("{fname}.{pname}"), cuda_version) {
                errors.push(Error::at(
                    ann.location_of(fname),
                    format!("annotation names parameter `{pname}` of `{fname}`, which has no such parameter"),
                ));
            }
            for other in [&a.len, &a.selector, &a.sizes].into_iter().flatten() {
                if f.param(other).is_none() {
                    errors.push(Error::at(
                        ann.location_of(fname),
                        format!("`{fname}.{pname}`: len names unknown parameter `{other}`"),
                    ));
                }
            }
        }
    }
    errors.finish()
}

fn apply(f: &mut Function, pname: &str, a: &ParamAnnotation, ann: &LibraryAnnotations) -> Result<()> {
    let at = ann.location_of(&f.name);
    let p =
        f.params.iter_mut().find(|p| p.name == pname).ok_or_else(|| Error::at(at.clone(), format!("no parameter `{pname}`")))?;
    if let Some(d) = a.direction {
        p.direction = d;
    }
    if let Some(n) = a.nullable {
        p.nullable = n;
    }
    if let Some(role) = &a.role {
        p.role = match role.as_str() {
            "value" => Role::Value,
            "in_ref" => Role::InRef,
            "out_value" => Role::OutValue,
            "in_out_ref" => Role::InOutRef,
            "cstr_in" => Role::CStrIn,
            "cstr_out" => Role::CStrOut,
            "in_array" => Role::InArray { len: a.len.clone() },
            "out_array" => Role::OutArray { len: a.len.clone() },
            "out_buffer" => Role::OutBuffer {
                len: a.len.clone(),
                string: a.string.unwrap_or(false),
                size_from: a.size_from.clone(),
                capacity: a.capacity,
            },
            "host_ptr" => Role::HostPtr,
            "callback" => Role::Callback,
            "user_data" => Role::UserData,
            "opaque" => Role::Opaque,
            "selected_value" => {
                let Some(sel) = a.selector.clone() else {
                    return Err(Error::at(at, format!("`{}.{pname}`: selected_value needs `selector`", f.name)));
                };
                Role::SelectedValue { selector: sel, len: a.len.clone() }
            }
            "selected_values" => {
                let Some(sel) = a.selector.clone() else {
                    return Err(Error::at(at, format!("`{}.{pname}`: selected_values needs `selector`", f.name)));
                };
                Role::SelectedValues { selectors: sel, sizes: a.sizes.clone() }
            }
            other => return Err(Error::at(at, format!("`{}.{pname}`: unknown role `{other}`", f.name))),
        };
        p.direction = a.direction.unwrap_or(match p.role {
            Role::OutValue | Role::OutArray { .. } | Role::OutBuffer { .. } | Role::CStrOut | Role::SelectedValues { .. } => {
                Direction::Out
            }
            Role::InOutRef => Direction::InOut,
            Role::Value | Role::InRef | Role::InArray { .. } | Role::CStrIn => Direction::In,
            _ => p.direction,
        });
    }
    p.decided_by = DecidedBy::Annotation;
    if let Some(spec) = &a.writes {
        p.written = Some(super::values::type_spelled(spec));
    }
    if matches!(p.role, Role::OutValue) {
        // an array the library owns, counted by another out value (which stays an out value)
        p.counted_by = a.len.clone();
    }
    let len = match &p.role {
        Role::InArray { len } | Role::OutArray { len } | Role::OutBuffer { len, .. } | Role::SelectedValue { len, .. } => {
            len.clone()
        }
        _ => None,
    };
    if let Some(len) = len {
        let of = pname.to_string();
        let selected = matches!(p.role, Role::SelectedValue { .. });
        if let Some(lp) =
            f.params.iter_mut().find(|q| q.name == len && (selected || matches!(q.ty, Type::Prim { .. } | Type::Named { .. })))
        {
            // A selected value's `size_t *size` is in/out: the surfaces set it from the member type.
            if matches!(lp.ty, Type::Pointer { .. }) {
                lp.direction = Direction::InOut;
            }
            lp.role = Role::Length { of };
            lp.decided_by = DecidedBy::Annotation;
        }
    }
    Ok(())
}

/// Direction stated by the `\param` text, if any.
fn doc_direction(doc: &str) -> Option<Direction> {
    let lower = doc.to_ascii_lowercase();
    if lower.starts_with("[in,out]") || lower.starts_with("[inout]") {
        return Some(Direction::InOut);
    }
    if lower.starts_with("[out]") {
        return Some(Direction::Out);
    }
    if lower.starts_with("[in]") {
        return Some(Direction::In);
    }
    const OUT: [&str; 13] = [
        "returned",
        "returns",
        "return ",
        "pointer to returned",
        "location to return",
        "location to store",
        "pointer to store",
        "location where",
        "output",
        "on output",
        "place to return",
        "pointer to return",
        "on success",
    ];
    let first_sentence = lower.split(". ").next().unwrap_or("");
    (OUT.iter().any(|p| lower.starts_with(p)) || first_sentence.contains(" to return ")).then_some(Direction::Out)
}

/// True when the function's name has `word` as a word after the prefix (`cuTexRefSetAddress`
/// for `Set`; not `cuMemset`).
fn verb(f: &Function, word: &str) -> bool {
    f.name
        .match_indices(word)
        .any(|(i, _)| i > 0 && f.name[i + word.len()..].chars().next().is_none_or(|c| c.is_ascii_uppercase() || c == '_'))
}

fn is_nullable(doc: &str) -> bool {
    ["may be NULL", "can be NULL", "or NULL", "If NULL", "if NULL", "NULL if", "optional", "Optional", "be NULL"]
        .iter()
        .any(|p| doc.contains(p))
}

/// What a pointee is, for role decisions.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Pointee {
    Void,
    Char,
    /// `char*` / `const char*` behind another pointer.
    CharPtr,
    VoidPtr,
    Record,
    Value,
    Other,
}

fn pointee_kind(lib: &Library, pointee: &Type) -> Pointee {
    match lib.resolve(pointee) {
        Resolved::Prim(Prim::Void) => Pointee::Void,
        Resolved::Prim(Prim::Char | Prim::SChar | Prim::UChar) => Pointee::Char,
        Resolved::Prim(_) | Resolved::Enum(_) | Resolved::OpaqueHandle(_) | Resolved::ScalarHandle(..) => Pointee::Value,
        Resolved::Record(_) => Pointee::Record,
        Resolved::Pointer { pointee: inner, .. } => match lib.resolve(inner) {
            Resolved::Prim(Prim::Char) => Pointee::CharPtr,
            Resolved::Prim(Prim::Void) => Pointee::VoidPtr,
            _ => Pointee::Other,
        },
        _ => Pointee::Other,
    }
}

fn classify(lib: &Library, f: &Function, p: &Param) -> (Direction, Role, bool, DecidedBy) {
    let stated = doc_direction(&p.doc);
    let nullable = is_nullable(&p.doc);
    let by = if stated.is_some() { DecidedBy::Doc } else { DecidedBy::Heuristic };
    let Type::Pointer { pointee, is_const } = &p.ty else {
        let role = match lib.resolve(&p.ty) {
            Resolved::Callback(_) | Resolved::FnPtr => Role::Callback,
            _ => Role::Value,
        };
        return (Direction::In, role, false, DecidedBy::Type);
    };
    let kind = pointee_kind(lib, pointee);
    let has_callback = f.params.iter().any(|q| matches!(lib.resolve(&q.ty), Resolved::Callback(_) | Resolved::FnPtr));
    let array_len = length_param(lib, f, p);
    let status = lib.is_status(&f.ret);
    let (setter, getter) = (verb(f, "Set"), verb(f, "Get"));
    // A const pointee is never written, whatever the doc says.
    let by = if *is_const { DecidedBy::Type } else { by };
    let dir = match (stated, is_const) {
        (_, true) => Direction::In,
        (Some(d), _) => d,
        // An array sized by a count is an input unless the doc says the callee fills it.
        (None, false) if array_len.is_some() && matches!(kind, Pointee::Value | Pointee::Record) => Direction::In,
        // A set function reads what its pointers point to.
        (None, false) if setter => Direction::In,
        // A get function fills the struct it is given.
        (None, false) if getter && kind == Pointee::Record => Direction::Out,
        // A non-const pointer to a value on a status-returning function is usually an output.
        (None, false) if status && matches!(kind, Pointee::Value | Pointee::CharPtr) && array_len.is_none() => Direction::Out,
        (None, false) => match kind {
            Pointee::Record => Direction::InOut,
            _ => Direction::In,
        },
    };
    let role = match (kind, dir, *is_const) {
        (Pointee::Char, Direction::In, _) => Role::CStrIn,
        (Pointee::Char, _, _) => {
            Role::OutBuffer { len: array_len.clone(), string: true, size_from: size_function(lib, f, p), capacity: None }
        }
        (Pointee::CharPtr, Direction::Out, _) => Role::CStrOut,
        (Pointee::CharPtr, _, _) => Role::InArray { len: array_len.clone() },
        (Pointee::Void, _, _) if has_callback && p.name.to_ascii_lowercase().contains("data") => Role::UserData,
        (Pointee::Void, _, _) => Role::HostPtr,
        (Pointee::VoidPtr, Direction::Out, _) => Role::OutValue,
        (Pointee::VoidPtr, _, _) => Role::Opaque,
        // Arrays: read-only when const or stated input, else the callee may write them.
        (Pointee::Value | Pointee::Record, Direction::In, _) if array_len.is_some() => Role::InArray { len: array_len.clone() },
        (Pointee::Value | Pointee::Record, _, _) if array_len.is_some() => Role::OutArray { len: array_len.clone() },
        (Pointee::Value, Direction::In, true) => Role::InArray { len: None },
        (Pointee::Record, Direction::In, true) => Role::InRef,
        (Pointee::Value | Pointee::Record, Direction::In, false) if setter => Role::InRef,
        (Pointee::Value | Pointee::Record, Direction::Out, _) => Role::OutValue,
        (Pointee::Value | Pointee::Record, _, _) => Role::InOutRef,
        (Pointee::Other, _, _) => Role::Opaque,
    };
    (dir, role, nullable, by)
}

/// The count parameter of an array/buffer parameter, by name.
fn length_param(lib: &Library, f: &Function, p: &Param) -> Option<String> {
    let stem = depluralize(&p.name.to_ascii_lowercase());
    let is_count = |q: &Param| match &q.ty {
        Type::Pointer { pointee, .. } => matches!(lib.resolve(pointee), Resolved::Prim(pr) if pr.is_integer()),
        t => matches!(lib.resolve(t), Resolved::Prim(pr) if pr.is_integer()),
    };
    let candidates: Vec<&Param> = f.params.iter().filter(|q| q.name != p.name && is_count(q)).collect();
    let lname = |q: &Param| q.name.to_ascii_lowercase();
    let counter_rest = |n: &str| -> Option<String> {
        n.strip_prefix("num").or_else(|| n.strip_prefix("nb")).or_else(|| n.strip_suffix("count")).map(str::to_string)
    };
    let by_value = |q: &Param| !matches!(q.ty, Type::Pointer { .. });
    // `numDependencies` for `dependencies`, `numOptions` for `options`, `numParams` for `paramsArray`.
    candidates
        .iter()
        .find(|q| {
            let rest = counter_rest(&lname(q)).unwrap_or_default();
            !rest.is_empty() && (stem.contains(depluralize(&rest).as_str()) || depluralize(&rest).contains(stem.as_str()))
        })
        .or_else(|| {
            // A parameter documented as an array or list (`mapInfoList`, `dsts`) and one counter
            // (`count`, `numX`, `nbX`), preferring one named `count`.
            let n = p.name.to_ascii_lowercase();
            let doc = p.doc.to_ascii_lowercase();
            let list_like = n.ends_with("list") || n.ends_with("array") || doc.contains("array") || doc.contains("list of");
            let counters: Vec<&&Param> =
                candidates.iter().filter(|q| by_value(q) && (lname(q) == "count" || counter_rest(&lname(q)).is_some())).collect();
            let pick = match counters.as_slice() {
                [one] => Some(*one),
                many => many.iter().copied().find(|q| lname(q) == "count"),
            };
            pick.filter(|_| list_like)
        })
        .or_else(|| {
            // Buffers: `name` + `len`, `buffer` + `size`/`bufferSize`.
            candidates.iter().find(|q| {
                let n = lname(q);
                n == "len"
                    || n == "length"
                    || n == format!("{stem}len")
                    || n == format!("{stem}size")
                    || n == format!("{stem}count")
            })
        })
        .map(|q| q.name.clone())
}

fn depluralize(s: &str) -> String {
    let s = s.trim_end_matches("array").trim_end_matches("list");
    if let Some(x) = s.strip_suffix("ies") {
        format!("{x}y")
    } else {
        s.strip_suffix('s').unwrap_or(s).to_string()
    }
}

/// Two-call pattern: `nvrtcGetPTX(prog, char *ptx)` sized by `nvrtcGetPTXSize(prog, size_t *)`.
fn size_function(lib: &Library, f: &Function, p: &Param) -> Option<String> {
    let size_fn = lib.function(&format!("{}Size", f.name))?;
    let leading: Vec<&Type> = f.params.iter().take_while(|q| q.name != p.name).map(|q| &q.ty).collect();
    let n = leading.len();
    let same_prefix = size_fn.params.len() == n + 1 && size_fn.params.iter().take(n).map(|q| &q.ty).eq(leading);
    let out_size = size_fn.params.last().is_some_and(|q| matches!(&q.ty, Type::Pointer { is_const: false, .. }));
    (same_prefix && out_size).then(|| size_fn.name.clone())
}

/// Marks by-value count parameters of arrays and buffers as `Length`.
fn link_lengths(lib: &mut Library, i: usize) {
    let f = &mut lib.functions[i];
    let links: Vec<(String, String)> = f
        .params
        .iter()
        .filter_map(|p| match &p.role {
            Role::InArray { len: Some(l) } | Role::OutArray { len: Some(l) } | Role::OutBuffer { len: Some(l), .. } => {
                Some((l.clone(), p.name.clone()))
            }
            _ => None,
        })
        .collect();
    for (len, of) in links {
        let Some(lp) = f.params.iter_mut().find(|q| q.name == len) else { continue };
        if matches!(lp.ty, Type::Pointer { .. }) {
            // `size_t *numNodes`: the caller passes the capacity and gets the count back.
            lp.role = Role::InOutRef;
            lp.direction = Direction::InOut;
        } else if !matches!(lp.role, Role::Length { .. }) {
            lp.role = Role::Length { of };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::passes::build;

    /// Runs the pass over one function `f(void *p, int *q)` annotated by `text`.
    fn annotated(text: &str) -> Result<Function> {
        let mut lib = Library::new(crate::profile::kind("runtime"));
        let void_ptr = Type::ptr(Type::prim(Prim::Void), false);
        let int_ptr = Type::ptr(Type::prim(Prim::Int), false);
        lib.functions.push(build::function(
            "f",
            vec![build::input("p", void_ptr, Role::Value, false), build::input("q", int_ptr, Role::Value, false)],
        ));
        run(&mut lib, &LibraryAnnotations::parse("a.toml", text).unwrap(), None)?;
        Ok(lib.functions.remove(0))
    }

    #[test]
    fn a_written_type_is_carried_for_an_untyped_out_value() {
        let f = annotated("[functions.f]\np = { role = \"out_value\", writes = \"unsigned int\" }\n").unwrap();
        assert_eq!((&f.params[0].role, &f.params[0].written), (&Role::OutValue, &Some(Type::prim(Prim::UInt))));
    }

    #[test]
    fn a_written_type_is_refused_where_it_cannot_apply() {
        for (text, says) in [
            ("p = { role = \"in_ref\", writes = \"int\" }", "only an out_value"),
            ("q = { role = \"out_value\", writes = \"int\" }", "not `void *`"),
            ("p = { role = \"out_value\", writes = \"NoSuchType\" }", "no known size"),
        ] {
            let e = annotated(&format!("[functions.f]\n{text}\n")).unwrap_err().to_string();
            assert!(e.contains("writes") && e.contains(says), "{text}: {e}");
        }
    }
}
