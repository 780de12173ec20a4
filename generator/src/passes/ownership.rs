//! Ownership: which calls create each kind of object, which call ends it, which handle borrows
//! from which, how each kind may cross threads, and which calls become methods of its owned type.
//! The safe Rust layer is printed from [`Library::resources`]; nothing there is hand-listed.
//!
//! Sources, in order: `[ownership]` annotations (keyed by function name), the names (a create /
//! end verb pair on the same subject: `cuStreamCreate` / `cuStreamDestroy`, `cuMemAlloc` /
//! `cuMemFree`), the docs ("must be freed with `cuMemFree`"). Every call that looks like it ends
//! an object's life (an end verb in its name or its brief) is paired with creators or excused
//! with a reason, else the pass fails: a new release's new ender is a review item, not a leak.

use crate::annotations::{LibraryAnnotations, OwnershipAnnotation};
use crate::diag::{Error, Errors, Result};
use crate::ir::*;
use heck::ToSnakeCase;
use std::collections::{BTreeMap, BTreeSet};

/// End verbs, each with the verbs of the calls that begin what it ends.
const END_VERBS: [(&str, &[&str]); 10] = [
    ("Destroy", &["Create", "Import", "Instantiate"]),
    ("Free", &["Alloc", "Reserve"]),
    ("Release", &["Retain", "Create", "Import", "Reserve"]),
    ("Unload", &["Load"]),
    ("Unregister", &["Register"]),
    ("Close", &["Open"]),
    ("Unmap", &["Map"]),
    ("Unbind", &["Bind"]),
    ("Detach", &["Attach"]),
    ("Disconnect", &["Connect"]),
];

/// First words of a brief that say the call ends something ("Destroys a stream").
const END_BRIEFS: [&str; 16] = [
    "destroy",
    "destroys",
    "free",
    "frees",
    "release",
    "releases",
    "unload",
    "unloads",
    "unregister",
    "unregisters",
    "close",
    "closes",
    "unmap",
    "unmaps",
    "decrement",
    "decrements",
];

/// Doc wording that names the call ending what a call returns: "must be freed with `cuMemFree`".
const DOC_MODALS: [&str; 4] = ["must", "should", "can", "may"];
const DOC_ENDS: [&str; 7] = ["freed", "destroyed", "released", "unloaded", "unregistered", "closed", "unmapped"];
const DOC_HOWS: [&str; 4] = ["with", "using", "by calling", "via"];

/// Every kind not in its library's `ownership.not_sync` (library.toml) is `Send` and `Sync`.
const THREAD_SAFE: &str = "driver objects are process-wide and the driver API is thread-safe: Send and Sync";
const ADDRESS_RULE: &str = "an address the owned type never reads through: Send and Sync";

/// `void*` is an address: many unrelated calls take one first, so its owned types get no generic
/// methods (the typed memory layer wraps memory calls); so are the library's
/// `ownership.addresses`.
const VOID_PTR: &str = "void*";

/// Begin verbs of calls that take over a handle the caller passes in (`cuMemHostRegister(p)`,
/// `cuMemMap(ptr)`) rather than return a new one; only they may create from an input.
const TAKES_OVER: [&str; 4] = ["Register", "Map", "Bind", "Retain"];

/// The support traits of kinds a checked launch runs.
const LAUNCHABLE: [&str; 2] = ["launchable_function", "launchable_kernel"];

/// Names an owned type reserves for itself; a method that would take one keeps its full name.
const RESERVED: [&str; 8] = ["as_raw", "into_raw", "from_raw", "destroy", "bind", "drop", "clone", "new"];

pub fn run(lib: &mut Library, ann: &LibraryAnnotations, cuda_version: Option<u32>) -> Result<()> {
    let anns = annotated(lib, ann, cuda_version)?;
    let mut plan = Plan::default();
    let mut errors = Errors::default();
    plan_enders(lib, &anns, &mut plan, &mut errors);
    resolve_named_parents(lib, &mut plan, &mut errors);
    plan_annotated_creators(lib, &anns, &mut plan, &mut errors);
    plan_found_creators(lib, &anns, &mut plan);
    plan_typed_children(lib, &mut plan);
    for r in &plan.kinds {
        if r.creators.is_empty() {
            let at = r.ender.as_ref().map_or(Location::default(), |e| {
                let f = &lib.functions[e.f];
                if ann.ownership.contains_key(&f.name) {
                    ann.range_location("ownership", &f.name)
                } else {
                    f.location.clone()
                }
            });
            let f = r.ender.as_ref().map_or("?", |e| lib.functions[e.f].name.as_str());
            errors.push(Error::at(
                at,
                format!(
                    "`{f}` ends a `{}` but no call creates one: pair it in [ownership] (`creates`) or excuse it",
                    r.handle_name
                ),
            ));
        }
    }
    errors.finish()?;
    let resources = finish(lib, &plan)?;
    for f in &mut lib.functions {
        f.ownership = None;
    }
    for x in &plan.excused {
        lib.functions[x.f].ownership = Some(FnOwnership::Excused { reason: x.reason.clone() });
    }
    for r in &resources {
        for c in &r.creators {
            set_ownership(lib, &c.function, FnOwnership::Creates { resource: r.name.clone() });
        }
        if let Some(e) = &r.ender {
            set_ownership(lib, &e.function, FnOwnership::Ends { resource: r.name.clone() });
        }
    }
    mark_enders_unsafe(lib, ann);
    lib.excused = plan
        .excused
        .iter()
        .map(|x| Excused { function: lib.functions[x.f].name.clone(), reason: x.reason.clone(), decided_by: x.by })
        .collect();
    lib.excused.sort_by(|a, b| a.function.cmp(&b.function));
    lib.resources = resources;
    Ok(())
}

/// Whatever ends a resource is `unsafe` in the typed layer (an owned type ends its own, safely):
/// each ender, and each call excused as one (it still ends or invalidates what it takes) unless
/// its annotation calls it `harmless`; and each creator of a `captured` handle.
fn mark_enders_unsafe(lib: &mut Library, ann: &LibraryAnnotations) {
    for f in &mut lib.functions {
        let a = ann.ownership.get(&f.name);
        if a.and_then(|a| a.captured) == Some(true) {
            f.mark_unsafe(Unsafety::Captured);
        }
        let harmless = a.and_then(|a| a.harmless) == Some(true);
        let why = match &f.ownership {
            Some(FnOwnership::Ends { resource }) => Unsafety::Ends { resource: Some(resource.clone()) },
            Some(FnOwnership::Excused { .. }) if !harmless => Unsafety::Ends { resource: None },
            _ => continue,
        };
        f.unsafe_because.retain(|u| !matches!(u, Unsafety::Ends { .. }));
        f.mark_unsafe(why);
    }
}

fn set_ownership(lib: &mut Library, function: &str, o: FnOwnership) {
    if let Some(f) = lib.functions.iter_mut().find(|f| f.name == function) {
        f.ownership = Some(o);
    }
}

// ---------------------------------------------------------------------------
// Annotations
// ---------------------------------------------------------------------------

/// A checked `[ownership]` entry of a function the header declares.
struct Ann<'a> {
    a: &'a OwnershipAnnotation,
    at: Location,
}

/// The `[ownership]` entries by function index; every name they hold must exist in the header.
fn annotated<'a>(lib: &Library, ann: &'a LibraryAnnotations, cuda_version: Option<u32>) -> Result<BTreeMap<usize, Ann<'a>>> {
    let mut out = BTreeMap::new();
    let mut errors = Errors::default();
    for (name, a) in &ann.ownership {
        let at = ann.range_location("ownership", name);
        let Some(i) = lib.functions.iter().position(|f| &f.name == name) else {
            if !ann.may_be_absent(name, cuda_version) {
                errors.push(Error::at(at, format!("[ownership] names function `{name}`, which the header does not declare")));
            }
            continue;
        };
        let f = &lib.functions[i];
        let set = [&a.ends, &a.creates, &a.excused].iter().filter(|x| x.is_some()).count();
        let refines = a.name.is_some() || a.parent.is_some() || a.owned.is_some() || !a.keep.is_empty();
        if set > 1 || (set == 0 && !refines) {
            errors.push(Error::at(at.clone(), format!("[ownership] {name}: give one of `ends`, `creates`, `excused`, or what to refine of a found ender (`name`, `parent`, `owned`, `keep`)")));
        }
        for ty in [&a.ends, &a.creates].into_iter().flatten() {
            if handle_type(lib, ty).is_none() {
                errors.push(Error::at(at.clone(), format!("[ownership] {name}: `{ty}` is not a handle type of the header")));
            }
        }
        if a.excused.is_some() && (a.name.is_some() || a.parent.is_some() || a.owned.is_some() || !a.keep.is_empty()) {
            errors.push(Error::at(at.clone(), format!("[ownership] {name}: an excused call takes no other keys but `harmless`")));
        }
        if a.harmless.is_some() && a.excused.is_none() {
            errors.push(Error::at(at.clone(), format!("[ownership] {name}: `harmless` goes with `excused` only")));
        }
        if a.captured.is_some() && a.creates.is_none() {
            errors.push(Error::at(at.clone(), format!("[ownership] {name}: `captured` goes with `creates` only")));
        }
        for k in a.keep.keys() {
            if f.param(k).is_none() {
                errors.push(Error::at(
                    at.clone(),
                    format!("[ownership] {name}: `keep` names parameter `{k}`, which it does not have"),
                ));
            }
        }
        out.insert(i, Ann { a, at });
    }
    errors.finish()?;
    Ok(out)
}

/// The key and C type of a handle type spelled in an annotation (`"CUstream"`, `"void*"`).
fn handle_type(lib: &Library, spelled: &str) -> Option<(String, Type)> {
    if spelled == VOID_PTR {
        return Some((VOID_PTR.into(), Type::ptr(Type::prim(Prim::Void), false)));
    }
    let ty = Type::named(spelled);
    key_of(lib, &ty).map(|k| (k, ty))
}

/// The handle key is `void*` or one of the library's `ownership.addresses`.
fn is_address(lib: &Library, key: &str) -> bool {
    let addresses = &lib.profile().ownership.addresses;
    key == VOID_PTR || addresses.iter().any(|a| handle_type(lib, a).is_some_and(|(k, _)| k == key))
}

/// What identifies a handle type: the handle typedef it resolves to, or `void*`.
fn key_of(lib: &Library, ty: &Type) -> Option<String> {
    match lib.resolve(ty) {
        Resolved::OpaqueHandle(t) | Resolved::ScalarHandle(t, _) => Some(t.name.clone()),
        Resolved::Pointer { pointee, is_const: false } if pointee.is_void() => Some(VOID_PTR.into()),
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

#[derive(Default)]
struct Plan {
    kinds: Vec<Kind>,
    excused: Vec<Excuse>,
}

struct Excuse {
    f: usize,
    reason: String,
    by: DecidedBy,
}

/// A resource while it is being decided.
struct Kind {
    key: String,
    handle: Type,
    /// The handle type as spelled (`CUdeviceptr`), for names and messages.
    handle_name: String,
    name: Option<String>,
    owned: bool,
    /// Handle keys of the parents.
    parents: Vec<String>,
    /// A parent the annotation names by resource (`parent = "AddressRange"`), where several
    /// resources share its handle type.
    parent_name: Option<String>,
    kept: Vec<String>,
    /// Ender parameter -> creator parameter, where the names differ.
    keep: BTreeMap<String, String>,
    ender: Option<PlannedEnder>,
    creators: Vec<PlannedCreator>,
    by: DecidedBy,
}

struct PlannedEnder {
    f: usize,
    args: Vec<EndArg>,
    words: Option<VerbSplit>,
    by: DecidedBy,
}

struct PlannedCreator {
    f: usize,
    handle_param: String,
    parent_param: Option<String>,
    kept_from: Vec<String>,
    by: DecidedBy,
}

/// A name split around its end verb: `cuMemFreeAsync` -> `[Mem]`, `Free`, `[Async]`.
#[derive(Clone, Debug, PartialEq)]
struct VerbSplit {
    subject: Vec<String>,
    verb: &'static str,
    tail: Vec<String>,
}

/// The words of a function name after the library prefix: `cuGraphicsGLRegisterBuffer` ->
/// `Graphics GL Register Buffer`; `_vN` suffixes are dropped.
fn words(name: &str, prefix: &str) -> Vec<String> {
    let bare = name.strip_prefix(prefix).unwrap_or(name);
    let mut out: Vec<String> = Vec::new();
    for part in bare.split('_').filter(|p| !p.is_empty()) {
        if part.len() > 1 && part.starts_with('v') && part[1..].bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let chars: Vec<char> = part.chars().collect();
        let mut word = String::new();
        for (i, &c) in chars.iter().enumerate() {
            let prev = i.checked_sub(1).map(|j| chars[j]);
            let next = chars.get(i + 1).copied();
            let upper = c.is_ascii_uppercase()
                && prev.is_some_and(|p| {
                    p.is_ascii_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_ascii_uppercase() && next.is_some_and(|n| n.is_ascii_lowercase()))
                });
            let boundary = upper || (c.is_ascii_digit() && prev.is_some_and(|p| p.is_ascii_alphabetic()));
            if boundary && !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            word.push(c);
        }
        if !word.is_empty() {
            out.push(word);
        }
    }
    out
}

fn verb_split(name: &str, prefix: &str) -> Option<VerbSplit> {
    let w = words(name, prefix);
    let i = w.iter().position(|x| END_VERBS.iter().any(|(v, _)| v == x))?;
    let verb = END_VERBS.iter().find(|(v, _)| *v == w[i]).map(|(v, _)| *v)?;
    Some(VerbSplit { subject: w[..i].to_vec(), verb, tail: w[i + 1..].to_vec() })
}

/// Who says `f` ends something: its name (an end verb) or its brief; `None`: it does not look so.
fn looks_like_ender(f: &Function, prefix: &str) -> Option<DecidedBy> {
    if verb_split(&f.name, prefix).is_some() {
        return Some(DecidedBy::Naming);
    }
    let first = f.doc.brief.split_whitespace().next().unwrap_or("").to_ascii_lowercase();
    END_BRIEFS.contains(&first.as_str()).then_some(DecidedBy::Doc)
}

/// The parameter of a naming-found ender that holds what it ends: the first handle by value (or
/// host address), else the first pointer to a handle the callee reads (`nvrtcProgram *`).
fn ender_handle(lib: &Library, f: &Function, key: Option<&str>) -> Option<(usize, bool)> {
    let by_value = f.params.iter().position(|p| {
        p.direction == Direction::In
            && matches!(p.role, Role::Value | Role::HostPtr)
            && key_of(lib, &p.ty).is_some_and(|k| key.is_none_or(|want| k == want))
    });
    by_value.map(|i| (i, false)).or_else(|| {
        f.params
            .iter()
            .position(|p| {
                matches!(p.role, Role::InOutRef | Role::InRef)
                    && pointee_key(lib, &p.ty).is_some_and(|k| key.is_none_or(|want| k == want))
            })
            .map(|i| (i, true))
    })
}

fn pointee_key(lib: &Library, ty: &Type) -> Option<String> {
    match ty.pointee() {
        Some((t, false)) => key_of(lib, t),
        _ => None,
    }
}

/// Ender arguments: the handle (by value or by pointer) and every other parameter as a kept value.
fn ender_args(f: &Function, handle: Option<(usize, bool)>) -> std::result::Result<Vec<EndArg>, String> {
    let mut args = Vec::new();
    for (i, p) in f.params.iter().enumerate() {
        args.push(match handle {
            Some((h, false)) if h == i => EndArg::Handle { param: p.name.clone() },
            Some((h, true)) if h == i => EndArg::HandleRef { param: p.name.clone() },
            _ if p.direction == Direction::In && matches!(p.role, Role::Value) => EndArg::Kept { param: p.name.clone() },
            _ => return Err(format!("parameter `{}` is neither the handle nor a value the creator can give", p.name)),
        });
    }
    Ok(args)
}

fn kept_of(args: &[EndArg]) -> Vec<String> {
    args.iter()
        .filter_map(|a| match a {
            EndArg::Kept { param } => Some(param.clone()),
            _ => None,
        })
        .collect()
}

fn plan_enders(lib: &Library, anns: &BTreeMap<usize, Ann>, plan: &mut Plan, errors: &mut Errors) {
    let prefix = lib.profile().prefix.as_str();
    for (i, f) in lib.functions.iter().enumerate() {
        let refine = anns.get(&i).filter(|ann| ann.a.ends.is_none() && ann.a.creates.is_none() && ann.a.excused.is_none());
        if let Some(ann) = anns.get(&i).filter(|_| refine.is_none()) {
            if let Some(reason) = &ann.a.excused {
                plan.excused.push(Excuse { f: i, reason: reason.clone(), by: DecidedBy::Annotation });
            }
            if let Some(ends) = &ann.a.ends {
                let Some((key, handle)) = handle_type(lib, ends) else { continue };
                let h = ender_handle(lib, f, Some(&key));
                match ender_args(f, h) {
                    Ok(args) => plan.kinds.push(kind(
                        lib,
                        key,
                        handle,
                        ends,
                        Some(ann.a),
                        Some(PlannedEnder { f: i, args, words: verb_split(&f.name, prefix), by: DecidedBy::Annotation }),
                        DecidedBy::Annotation,
                    )),
                    Err(why) => errors.push(Error::at(ann.at.clone(), format!("[ownership] {}: {why}", f.name))),
                }
            }
            continue;
        }
        let Some(by) = looks_like_ender(f, prefix) else {
            if let Some(ann) = refine {
                errors.push(Error::at(
                    ann.at.clone(),
                    format!("[ownership] {}: refines an ender, but the call does not look like one", f.name),
                ));
            }
            continue;
        };
        if let Some(d) = &f.deprecated {
            let why = if d.is_empty() { String::new() } else { format!(": {d}") };
            plan.excused.push(Excuse {
                f: i,
                reason: format!("deprecated in the header{why}; the safe layer has no deprecated calls"),
                by: DecidedBy::Doc,
            });
            continue;
        }
        let unpaired = |why: String| {
            Error::at(
                f.location.clone(),
                format!("`{}` looks like it ends an object's life ({why}): pair it or excuse it in [ownership]", f.name),
            )
        };
        let Some(h) = ender_handle(lib, f, None) else {
            errors.push(unpaired("no handle parameter".into()));
            continue;
        };
        let p = &f.params[h.0];
        let (key, handle) = if h.1 {
            (pointee_key(lib, &p.ty), p.ty.pointee().map(|(t, _)| t.clone()))
        } else {
            (key_of(lib, &p.ty), Some(p.ty.clone()))
        };
        let (Some(key), Some(handle)) = (key, handle) else { continue };
        match ender_args(f, Some(h)) {
            Ok(args) => {
                let spelled = spelled(&handle);
                plan.kinds.push(kind(
                    lib,
                    key,
                    handle,
                    &spelled,
                    refine.map(|r| r.a),
                    Some(PlannedEnder { f: i, args, words: verb_split(&f.name, prefix), by }),
                    by,
                ));
            }
            Err(why) => errors.push(unpaired(why)),
        }
    }
}

fn spelled(ty: &Type) -> String {
    match ty {
        Type::Named { name } => name.clone(),
        _ => VOID_PTR.into(),
    }
}

fn kind(
    lib: &Library,
    key: String,
    handle: Type,
    spelled: &str,
    a: Option<&OwnershipAnnotation>,
    ender: Option<PlannedEnder>,
    by: DecidedBy,
) -> Kind {
    let kept = ender.as_ref().map(|e| kept_of(&e.args)).unwrap_or_default();
    let parent = a.and_then(|a| a.parent.as_deref());
    let parents = parent.and_then(|p| handle_type(lib, p)).map(|(k, _)| vec![k]).unwrap_or_default();
    let parent_name = parent.filter(|p| handle_type(lib, p).is_none()).map(String::from);
    Kind {
        key,
        handle,
        handle_name: spelled.to_string(),
        name: a.and_then(|a| a.name.clone()),
        owned: ender.is_some() && a.and_then(|a| a.owned).unwrap_or(true),
        parents,
        parent_name,
        kept,
        keep: a.map(|a| a.keep.clone()).unwrap_or_default(),
        ender,
        creators: Vec::new(),
        by,
    }
}

/// How `f` would give a handle of `key`: its one out-value of that type, or, for a call that
/// returns no handle at all, an input of that type it takes over (`cuMemHostRegister`'s `p`).
fn handle_source(lib: &Library, f: &Function, key: &str, takes_input: bool) -> Option<String> {
    let outs: Vec<&Param> =
        f.params.iter().filter(|p| matches!(p.role, Role::OutValue) && pointee_key(lib, &p.ty).is_some()).collect();
    let mine: Vec<&&Param> = outs.iter().filter(|p| pointee_key(lib, &p.ty).as_deref() == Some(key)).collect();
    match (outs.len(), mine.len()) {
        (_, 1) => Some(mine[0].name.clone()),
        (0, _) if takes_input => f
            .params
            .iter()
            .find(|p| {
                p.direction == Direction::In
                    && matches!(p.role, Role::Value | Role::HostPtr)
                    && key_of(lib, &p.ty).as_deref() == Some(key)
            })
            .map(|p| p.name.clone()),
        _ => None,
    }
}

/// The creator of `k` that `f` would be, if it can give the handle, the kept values and a parent.
fn creator_of(lib: &Library, k: &Kind, f_index: usize, by: DecidedBy, takes_input: bool) -> Option<PlannedCreator> {
    let f = &lib.functions[f_index];
    let handle_param = handle_source(lib, f, &k.key, takes_input)?;
    let ender = k.ender.as_ref().map(|e| &lib.functions[e.f]);
    let mut kept_from = Vec::new();
    for kept in &k.kept {
        let from = k.keep.get(kept).map(String::as_str).unwrap_or(kept);
        let want = ender.and_then(|e| e.param(kept)).map(|p| &p.ty);
        let p = f.param(from).filter(|p| p.direction == Direction::In && matches!(p.role, Role::Value) && Some(&p.ty) == want)?;
        kept_from.push(p.name.clone());
    }
    let parent_param = if k.parents.is_empty() {
        None
    } else {
        Some(
            f.params
                .iter()
                .find(|p| {
                    p.direction == Direction::In
                        && matches!(p.role, Role::Value)
                        && key_of(lib, &p.ty).is_some_and(|key| k.parents.contains(&key))
                })?
                .name
                .clone(),
        )
    };
    Some(PlannedCreator { f: f_index, handle_param, parent_param, kept_from, by })
}

/// Turns parents named by resource (`parent = "AddressRange"`) into that resource's handle key.
fn resolve_named_parents(lib: &Library, plan: &mut Plan, errors: &mut Errors) {
    for j in 0..plan.kinds.len() {
        let Some(name) = plan.kinds[j].parent_name.clone() else { continue };
        let named = |k: &Kind| k.name.clone().unwrap_or_else(|| stem(lib, &k.handle_name)) == name;
        match plan.kinds.iter().find(|k| named(k)).map(|k| k.key.clone()) {
            Some(key) if !plan.kinds[j].parents.contains(&key) => plan.kinds[j].parents.push(key),
            Some(_) => {}
            None => errors
                .push(Error::new(format!("[ownership]: parent `{name}` is neither a handle type of the header nor a resource"))),
        }
    }
}

fn plan_annotated_creators(lib: &Library, anns: &BTreeMap<usize, Ann>, plan: &mut Plan, errors: &mut Errors) {
    for (&i, ann) in anns {
        let Some(creates) = &ann.a.creates else { continue };
        let Some((key, handle)) = handle_type(lib, creates) else { continue };
        let same = |k: &Kind| {
            k.key == key && ann.a.name.as_ref().is_none_or(|n| *n == k.name.clone().unwrap_or_else(|| stem(lib, &k.handle_name)))
        };
        let found: Vec<usize> = plan.kinds.iter().enumerate().filter(|(_, k)| same(k)).map(|(j, _)| j).collect();
        let j = match found.as_slice() {
            [j] => *j,
            [] => {
                plan.kinds.push(kind(lib, key, handle, creates, Some(ann.a), None, DecidedBy::Annotation));
                plan.kinds.len() - 1
            }
            _ => {
                errors.push(Error::at(
                    ann.at.clone(),
                    format!("[ownership] {}: several resources own `{creates}`: say which with `name`", lib.functions[i].name),
                ));
                continue;
            }
        };
        if let Some(p) = ann.a.parent.as_deref().and_then(|p| handle_type(lib, p)) {
            if !plan.kinds[j].parents.contains(&p.0) {
                plan.kinds[j].parents.push(p.0);
            }
        }
        match creator_of(lib, &plan.kinds[j], i, DecidedBy::Annotation, true) {
            Some(c) => plan.kinds[j].creators.push(c),
            None => errors.push(Error::at(
                ann.at.clone(),
                format!(
                    "[ownership] {}: gives no `{creates}` with the values its ender keeps and its parent",
                    lib.functions[i].name
                ),
            )),
        }
    }
}

/// Creators found by name, then by doc, for every kind with an ender.
fn plan_found_creators(lib: &Library, anns: &BTreeMap<usize, Ann>, plan: &mut Plan) {
    let prefix = lib.profile().prefix.as_str();
    let taken: BTreeSet<usize> = plan
        .kinds
        .iter()
        .flat_map(|k| k.creators.iter().map(|c| c.f))
        .chain(plan.kinds.iter().filter_map(|k| k.ender.as_ref().map(|e| e.f)))
        .collect();
    for (i, f) in lib.functions.iter().enumerate() {
        if f.deprecated.is_some() || taken.contains(&i) || anns.contains_key(&i) || looks_like_ender(f, prefix).is_some() {
            continue;
        }
        let fw = words(&f.name, prefix);
        let mut best: Option<((usize, std::cmp::Reverse<usize>), usize, PlannedCreator)> = None;
        for (j, k) in plan.kinds.iter().enumerate() {
            let Some(e) = &k.ender else { continue };
            let Some((score, verb)) = e.words.as_ref().and_then(|w| naming_score(w, &fw)) else { continue };
            if best.as_ref().is_some_and(|b| b.0 >= score) {
                continue;
            }
            if let Some(c) = creator_of(lib, k, i, DecidedBy::Naming, TAKES_OVER.contains(&verb)) {
                best = Some((score, j, c));
            }
        }
        let windows = if best.is_none() { ender_windows(&f.doc.markdown) } else { Vec::new() };
        if !windows.is_empty() {
            for (j, k) in plan.kinds.iter().enumerate() {
                let Some(e) = &k.ender else { continue };
                if windows.iter().any(|w| names_call(w, &lib.functions[e.f].name)) {
                    if let Some(c) = creator_of(lib, k, i, DecidedBy::Doc, false) {
                        best = Some(((0, std::cmp::Reverse(0)), j, c));
                        break;
                    }
                }
            }
        }
        if let Some((_, j, c)) = best {
            plan.kinds[j].creators.push(c);
        }
    }
}

/// How well a creator's name matches an ender's: it starts with the ender's subject and has a
/// verb that begins what the end verb ends. Longer subject and matched tail win; among equals,
/// the ender with the shorter tail (`cuMemAlloc` pairs with `cuMemFree`, not `cuMemFreeAsync`).
fn naming_score(e: &VerbSplit, creator: &[String]) -> Option<((usize, std::cmp::Reverse<usize>), &'static str)> {
    let rest = creator.strip_prefix(e.subject.as_slice())?;
    let begins = END_VERBS.iter().find(|(v, _)| *v == e.verb).map(|(_, b)| *b)?;
    let verb = *begins.iter().find(|b| rest.iter().any(|w| w == *b))?;
    let chars = |ws: &[String]| ws.iter().map(String::len).sum::<usize>();
    let tail = if e.tail.iter().all(|t| rest.contains(t)) { chars(&e.tail) } else { 0 };
    Some(((chars(&e.subject) + tail, std::cmp::Reverse(chars(&e.tail))), verb))
}

/// True when a sentence of `doc` says what the call returns must (or can) be ended by `ender`:
/// "must be freed with `cuMemFree`", "can be destroyed by calling `cuStreamDestroy()`".
#[cfg(test)]
fn doc_names_ender(doc: &str, ender: &str) -> bool {
    ender_windows(doc).iter().any(|w| names_call(w, ender))
}

/// The text (up to 80 characters, to the end of the sentence) after each "{modal} [eventually]
/// be {end} {how} " of `doc`, whitespace collapsed: where a doc names the call that ends what
/// the function returns. Computed once per function, then matched against every ender's name.
fn ender_windows(doc: &str) -> Vec<String> {
    let text = doc.split_whitespace().collect::<Vec<_>>().join(" ");
    let lower = text.to_ascii_lowercase();
    let mut windows = Vec::new();
    let mut from = 0;
    while let Some(at) = lower[from..].find(" be ") {
        let be = from + at;
        from = be + 1;
        let before = &lower[..be];
        let modal = |m: &&str| before.ends_with(*m) || before.strip_suffix(" eventually").is_some_and(|b| b.ends_with(*m));
        if !DOC_MODALS.iter().any(modal) {
            continue;
        }
        let after = &lower[be + " be ".len()..];
        for end in DOC_ENDS.iter().filter_map(|e| after.strip_prefix(e)?.strip_prefix(' ')) {
            for rest in DOC_HOWS.iter().filter_map(|h| end.strip_prefix(h)?.strip_prefix(' ')) {
                let start = lower.len() - rest.len();
                windows.push(text[start..].chars().take(80).take_while(|&c| c != '.').collect());
            }
        }
    }
    windows
}

/// `text` names the function `name` as a whole word.
fn names_call(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// For kinds that borrow a parent: every call returning one handle of the kind from an input
/// of a parent's type is a creator (`cuGraphAddKernelNode` gives a node of its `hGraph`).
fn plan_typed_children(lib: &Library, plan: &mut Plan) {
    for j in 0..plan.kinds.len() {
        if plan.kinds[j].parents.is_empty() {
            continue;
        }
        for (i, f) in lib.functions.iter().enumerate() {
            let taken =
                plan.kinds.iter().any(|k| k.creators.iter().any(|c| c.f == i) || k.ender.as_ref().is_some_and(|e| e.f == i));
            if taken || f.deprecated.is_some() {
                continue;
            }
            let k = &plan.kinds[j];
            let outs = f
                .params
                .iter()
                .filter(|p| matches!(p.role, Role::OutValue) && pointee_key(lib, &p.ty).as_deref() == Some(k.key.as_str()))
                .count();
            if outs != 1 {
                continue;
            }
            if let Some(c) = creator_of(lib, k, i, DecidedBy::Type, false) {
                plan.kinds[j].creators.push(c);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Finishing: names, parents, threading, methods
// ---------------------------------------------------------------------------

fn finish(lib: &Library, plan: &Plan) -> Result<Vec<Resource>> {
    let mut errors = Errors::default();
    let names = kind_names(lib, plan, &mut errors);
    let by_key =
        |key: &str| -> Vec<usize> { plan.kinds.iter().enumerate().filter(|(_, k)| k.key == key).map(|(j, _)| j).collect() };
    let mut out = Vec::new();
    for (j, k) in plan.kinds.iter().enumerate() {
        let mut parents = Vec::new();
        for p in &k.parents {
            let named = k.parent_name.as_ref().filter(|n| names.contains(n) && by_key(p).iter().any(|&i| &names[i] == *n));
            match (named, by_key(p).as_slice()) {
                (Some(n), _) => parents.push(n.clone()),
                (None, [one]) => parents.push(names[*one].clone()),
                _ => errors.push(Error::new(format!("`{}` borrows a `{p}`, which is not exactly one resource", names[j]))),
            }
        }
        let (send, sync, threading) = threading(lib, k);
        let facts = &lib.profile().ownership;
        let binds = facts
            .binds
            .iter()
            .find(|b| b.handle == k.handle_name && lib.function(&b.push).is_some() && lib.function(&b.pop).is_some())
            .map(|b| Binding { push: b.push.clone(), pop: b.pop.clone() });
        out.push(Resource {
            name: names[j].clone(),
            handle: k.handle.clone(),
            address: is_address(lib, &k.key),
            owned: k.owned,
            parents,
            in_context: false,
            kept: k.kept.clone(),
            creators: Vec::new(),
            ender: k.ender.as_ref().map(|e| Ender {
                function: lib.functions[e.f].name.clone(),
                args: e.args.clone(),
                decided_by: e.by,
            }),
            methods: Vec::new(),
            send,
            sync,
            threading,
            binds,
            traits: facts.support_traits.get(&k.handle_name).cloned().unwrap_or_default(),
            kernel_layouts: false,
            decided_by: k.ender.as_ref().map(|e| e.by).or(k.creators.first().map(|c| c.by)).unwrap_or(k.by),
        });
    }
    errors.finish()?;
    place_calls(lib, plan, &mut out);
    kernel_layouts(lib, &mut out);
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Kinds loaded from a module image (a constructor's parameter `[trace.params]` marks `image`:
/// `Creator::image_param`) keep the kernel parameter layouts of a PTX image
/// (`Resource::kernel_layouts`); their methods that hand out a launchable kernel by name (the
/// call's one string input: `Creator::kernel_name`) seed its launch cache from them.
fn kernel_layouts(lib: &Library, out: &mut [Resource]) {
    let image_of =
        |c: &Creator| lib.function(&c.function)?.params.iter().find(|p| p.trace == Some(TraceUse::Image)).map(|p| p.name.clone());
    for r in out.iter_mut() {
        for c in r.creators.iter_mut().filter(|c| c.on.is_empty()) {
            c.image_param = image_of(c);
        }
        r.kernel_layouts = r.creators.iter().any(|c| c.image_param.is_some());
    }
    let loaded: BTreeSet<String> = out.iter().filter(|r| r.kernel_layouts).map(|r| r.name.clone()).collect();
    let launchable = |r: &Resource| r.traits.iter().any(|t| LAUNCHABLE.contains(&t.as_str()));
    for r in out.iter_mut().filter(|r| launchable(r)) {
        for c in r.creators.iter_mut().filter(|c| matches!(c.on.as_slice(), [host] if loaded.contains(host))) {
            let names: Vec<&str> = lib
                .function(&c.function)
                .map(|f| f.params.iter().filter(|p| matches!(p.role, Role::CStrIn)).map(|p| p.name.as_str()).collect())
                .unwrap_or_default();
            if let [one] = names.as_slice() {
                c.kernel_name = Some(one.to_string());
            }
        }
    }
}

/// Each kind's type name: the annotation's, else its handle type without the library prefix
/// (`CUstream` -> `Stream`); two kinds may not share one.
fn kind_names(lib: &Library, plan: &Plan, errors: &mut Errors) -> Vec<String> {
    let names: Vec<String> = plan.kinds.iter().map(|k| k.name.clone().unwrap_or_else(|| stem(lib, &k.handle_name))).collect();
    let mut seen = BTreeSet::new();
    for (k, n) in plan.kinds.iter().zip(&names) {
        if !seen.insert(n.clone()) || n.is_empty() {
            let f = k.ender.as_ref().map_or("?", |e| lib.functions[e.f].name.as_str());
            errors.push(Error::new(format!(
                "two resources would be named `{n}` (one ended by `{f}`): give one a `name` in [ownership]"
            )));
        }
    }
    names
}

/// `CUstream` -> `Stream`, `nvrtcProgram` -> `Program`, `void*` -> `` (must be named).
fn stem(lib: &Library, handle: &str) -> String {
    if handle == VOID_PTR {
        return String::new();
    }
    let prefix = lib.profile().prefix.as_str();
    let bare = handle.strip_prefix(&prefix.to_ascii_uppercase()).or_else(|| handle.strip_prefix(prefix)).unwrap_or(handle);
    let mut c = bare.chars();
    c.next().map(|f| f.to_ascii_uppercase().to_string() + c.as_str()).unwrap_or_default()
}

fn threading(lib: &Library, k: &Kind) -> (bool, bool, String) {
    if let Some((_, why)) =
        lib.profile().ownership.not_sync.iter().find(|(h, _)| {
            lib.typedef(h).is_some_and(|_| key_of(lib, &Type::named(h.as_str())).as_deref() == Some(k.key.as_str()))
        })
    {
        return (true, false, why.to_string());
    }
    if is_address(lib, &k.key) {
        return (true, true, ADDRESS_RULE.into());
    }
    (true, true, THREAD_SAFE.into())
}

/// Creators become constructors (on the created type) or methods (on the parent, or on the kind
/// whose handle is their first input); other calls whose first input is a handle become methods
/// of every kind with that handle (addresses excepted).
fn place_calls(lib: &Library, plan: &Plan, out: &mut [Resource]) {
    let prefixes = handle_prefixes(lib, plan);
    let context_status = lib.profile().ownership.context_status.as_ref();
    let kinds_of =
        |key: &str| -> Vec<usize> { plan.kinds.iter().enumerate().filter(|(_, k)| k.key == key).map(|(j, _)| j).collect() };
    let busy: BTreeSet<usize> =
        plan.kinds.iter().flat_map(|k| k.creators.iter().map(|c| c.f).chain(k.ender.as_ref().map(|e| e.f))).collect();
    // Names taken per kind (index), for uniqueness.
    let mut taken: Vec<BTreeSet<String>> = vec![RESERVED.iter().map(|s| s.to_string()).collect(); out.len()];
    let mut creators: Vec<Vec<Creator>> = vec![Vec::new(); out.len()];
    for (j, k) in plan.kinds.iter().enumerate() {
        for c in &k.creators {
            let f = &lib.functions[c.f];
            let (mut on, self_param) = creator_host(lib, f, c, &kinds_of);
            if let Some(parent) = &k.parent_name {
                on.retain(|&h| out[h].name == *parent);
            }
            let hosts: Vec<usize> = if on.is_empty() { vec![j] } else { on.clone() };
            let pre = &prefixes[&plan.kinds[hosts[0]].key];
            let name = unique_name(&f.names.rust, pre, hosts.iter().map(|&h| &taken[h]));
            for &h in &hosts {
                taken[h].insert(name.clone());
            }
            creators[j].push(Creator {
                function: f.name.clone(),
                handle_param: c.handle_param.clone(),
                parent_param: c.parent_param.clone(),
                kept_from: c.kept_from.clone(),
                on: on.iter().map(|&h| out[h].name.clone()).collect(),
                handle_args: handle_args(lib, plan, f, &[Some(&c.handle_param), c.parent_param.as_ref(), self_param.as_ref()]),
                self_param,
                name,
                image_param: None,
                kernel_name: None,
                decided_by: c.by,
            });
        }
    }
    for (j, k) in plan.kinds.iter().enumerate() {
        out[j].creators = std::mem::take(&mut creators[j]);
        out[j].in_context = out[j].binds.is_none()
            && out[j].creators.iter().any(|c| {
                c.on.is_empty()
                    && lib
                        .function(&c.function)
                        .is_some_and(|f| context_status.is_some_and(|s| f.doc.markdown.contains(s.as_str())))
            });
        if is_address(lib, &k.key) {
            continue;
        }
        for (i, f) in lib.functions.iter().enumerate() {
            if busy.contains(&i) || f.deprecated.is_some() {
                continue;
            }
            let Some(first) = f.params.iter().find(|p| p.direction == Direction::In) else { continue };
            if !matches!(first.role, Role::Value) || key_of(lib, &first.ty).as_deref() != Some(k.key.as_str()) {
                continue;
            }
            let name = unique_name(&f.names.rust, &prefixes[&k.key], std::iter::once(&taken[j]));
            taken[j].insert(name.clone());
            let handle_args = handle_args(lib, plan, f, &[Some(&first.name)]);
            out[j].methods.push(Method { function: f.name.clone(), self_param: first.name.clone(), name, handle_args });
        }
    }
}

/// The inputs of `f` but `skip` that hold the handle of a resource by value (addresses aside:
/// many calls take them, and pointer arithmetic makes them data).
fn handle_args(lib: &Library, plan: &Plan, f: &Function, skip: &[Option<&String>]) -> Vec<String> {
    f.params
        .iter()
        .filter(|p| p.direction == Direction::In && matches!(p.role, Role::Value) && !skip.contains(&Some(&p.name)))
        .filter(|p| key_of(lib, &p.ty).is_some_and(|key| !is_address(lib, &key) && plan.kinds.iter().any(|k| k.key == key)))
        .map(|p| p.name.clone())
        .collect()
}

/// Where a creator goes: a method of the parent it borrows from, else of the kinds whose handle
/// is its first input (not its own handle); else (empty) a constructor of the created kind.
fn creator_host(
    lib: &Library,
    f: &Function,
    c: &PlannedCreator,
    kinds_of: &dyn Fn(&str) -> Vec<usize>,
) -> (Vec<usize>, Option<String>) {
    if let Some(p) = &c.parent_param {
        let key = f.param(p).and_then(|q| key_of(lib, &q.ty)).unwrap_or_default();
        return (kinds_of(&key), Some(p.clone()));
    }
    let Some(first) = f.params.iter().find(|p| p.direction == Direction::In) else { return (Vec::new(), None) };
    if first.name == c.handle_param || !matches!(first.role, Role::Value) {
        return (Vec::new(), None);
    }
    // Addresses host no methods: a host pointer first (`cuEventCreateFromEGLSync(eglSync)`) is data.
    let hosts = key_of(lib, &first.ty).filter(|key| !is_address(lib, key)).map(|key| kinds_of(&key)).unwrap_or_default();
    if hosts.is_empty() {
        (Vec::new(), None)
    } else {
        (hosts, Some(first.name.clone()))
    }
}

/// Per handle key, the word sequences a call name may start with that a method drops: the
/// handle type's stem (`CUgraphExec` -> `graph exec`) and the subjects of its enders
/// (`cuDevicePrimaryCtxRelease` -> `device primary ctx`).
fn handle_prefixes(lib: &Library, plan: &Plan) -> BTreeMap<String, Vec<Vec<String>>> {
    let mut out: BTreeMap<String, Vec<Vec<String>>> = BTreeMap::new();
    for k in &plan.kinds {
        let entry = out.entry(k.key.clone()).or_default();
        let stem_words: Vec<String> =
            stem(lib, &k.handle_name).to_snake_case().split('_').filter(|w| !w.is_empty()).map(String::from).collect();
        if !stem_words.is_empty() && !entry.contains(&stem_words) {
            entry.push(stem_words);
        }
        if let Some(w) = k.ender.as_ref().and_then(|e| e.words.as_ref()) {
            let subject: Vec<String> = w.subject.iter().map(|s| s.to_ascii_lowercase()).collect();
            if !subject.is_empty() && !entry.contains(&subject) {
                entry.push(subject);
            }
        }
    }
    out
}

/// `word` is `full` or an abbreviation of it (same first letter, letters in order: `ctx` of
/// `context`, `func` of `function`, `mem` of `memory`).
fn abbreviates(word: &str, full: &str) -> bool {
    if word == full {
        return true;
    }
    if word.len() < 2 || word.chars().next() != full.chars().next() {
        return false;
    }
    let mut rest = full.chars();
    word.chars().all(|c| rest.any(|f| f == c))
}

/// The typed name without the longest leading run of words one of `prefixes` starts with
/// (`stream_synchronize` -> `synchronize`); the full name when that leaves nothing usable or a
/// name already taken.
fn unique_name<'a>(typed: &str, prefixes: &[Vec<String>], taken: impl Iterator<Item = &'a BTreeSet<String>> + Clone) -> String {
    let w: Vec<&str> = typed.trim_start_matches("r#").split('_').collect();
    let strip =
        prefixes.iter().map(|p| p.iter().zip(&w).take_while(|(full, word)| abbreviates(word, full)).count()).max().unwrap_or(0);
    let short = w[strip.min(w.len())..].join("_");
    let usable = !short.is_empty()
        && !short.starts_with(|c: char| c.is_ascii_digit())
        && crate::passes::naming::rust_ident(&short) == short
        && !taken.clone().any(|t| t.contains(&short));
    if usable && strip > 0 {
        short
    } else {
        typed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(name: &str) -> VerbSplit {
        verb_split(name, "cu").unwrap()
    }

    #[test]
    fn enders_are_unsafe_and_excused_ones_unless_harmless() {
        let mut lib = Library::new(crate::profile::kind("driver"));
        let f = |name: &str, o: FnOwnership| Function { ownership: Some(o), ..crate::passes::build::function(name, vec![]) };
        let excused = || FnOwnership::Excused { reason: "r".into() };
        lib.functions = vec![
            f("cuThingDestroy", FnOwnership::Ends { resource: "Thing".into() }),
            f("cuThingReset", excused()),
            f("cuThingTrim", excused()),
            f("cuThingCreate", FnOwnership::Creates { resource: "Thing".into() }),
        ];
        let ann =
            LibraryAnnotations::parse("a.toml", "[ownership]\ncuThingTrim = { excused = \"r\", harmless = true }\n").unwrap();
        mark_enders_unsafe(&mut lib, &ann);
        mark_enders_unsafe(&mut lib, &ann);
        let why: Vec<Vec<String>> =
            lib.functions.iter().map(|f| f.unsafe_because.iter().map(Unsafety::short).collect()).collect();
        assert_eq!(why, [vec!["ends(Thing)".to_string()], vec!["ends(excused)".into()], vec![], vec![]]);
        assert_eq!(lib.functions.iter().map(|f| f.needs_unsafe).collect::<Vec<_>>(), [true, true, false, false]);
    }

    #[test]
    fn words_split_camel_case_and_drop_versions() {
        assert_eq!(words("cuGraphicsGLRegisterBuffer", "cu"), ["Graphics", "GL", "Register", "Buffer"]);
        assert_eq!(words("cuCtxCreate_v3", "cu"), ["Ctx", "Create"]);
        assert_eq!(words("cuArray3DCreate", "cu"), ["Array", "3", "D", "Create"]);
        assert_eq!(words("nvrtcDestroyProgram", "nvrtc"), ["Destroy", "Program"]);
    }

    #[test]
    fn a_creator_pairs_with_the_ender_of_its_subject_and_tail() {
        let w = |n: &str| words(n, "cu");
        let free = split("cuMemFree");
        let free_async = split("cuMemFreeAsync");
        let address_free = split("cuMemAddressFree");
        // Plain alloc: both match the subject; the one without a tail wins the tie.
        assert!(naming_score(&free, &w("cuMemAlloc")) > naming_score(&free_async, &w("cuMemAlloc")));
        // An async alloc matches the async free's tail.
        assert!(naming_score(&free_async, &w("cuMemAllocFromPoolAsync")) > naming_score(&free, &w("cuMemAllocFromPoolAsync")));
        assert!(naming_score(&address_free, &w("cuMemAddressReserve")) > naming_score(&free, &w("cuMemAddressReserve")));
        // A verb that does not begin what Free ends, or another subject, is no match.
        assert_eq!(naming_score(&free, &w("cuMemMap")), None);
        assert_eq!(naming_score(&split("cuStreamDestroy"), &w("cuEventCreate")), None);
        assert!(naming_score(&split("cuDestroyExternalMemory"), &w("cuImportExternalMemory")).is_some());
    }

    #[test]
    fn doc_must_say_the_return_is_ended_by_the_call() {
        assert!(doc_names_ender("The returned pointer `devPtr` must be freed using `cuMemFree`.", "cuMemFree"));
        assert!(doc_names_ender("The stream can be\n destroyed by calling `cuStreamDestroy()`.", "cuStreamDestroy"));
        assert!(!doc_names_ender("must be freed using `cuMemFreeHost`.", "cuMemFree"), "a longer name is another call");
        assert!(!doc_names_ender("**See also:** `cuMemFree`", "cuMemFree"), "a see-also is no pairing");
        assert!(!doc_names_ender("before destroying the first with `cuGraphExecDestroy`", "cuGraphExecDestroy"));
    }

    #[test]
    fn method_names_drop_the_handle_prefix_or_its_abbreviation() {
        let none = BTreeSet::new();
        let ctx = vec![vec!["context".to_string()]];
        assert_eq!(unique_name("ctx_get_id", &ctx, std::iter::once(&none)), "get_id");
        let exec = vec![vec!["graph".to_string(), "exec".to_string()]];
        assert_eq!(unique_name("graph_exec_update", &exec, std::iter::once(&none)), "update");
        assert_eq!(unique_name("graph_launch", &exec, std::iter::once(&none)), "launch");
        let graph = vec![vec!["graph".to_string()]];
        assert_eq!(
            unique_name("graph_clone", &graph, std::iter::once(&RESERVED.iter().map(|s| s.to_string()).collect())),
            "graph_clone"
        );
        assert_eq!(unique_name("get_ptx", &[vec!["program".into()]], std::iter::once(&none)), "get_ptx");
        assert!(!abbreviates("get", "graph") && abbreviates("func", "function") && abbreviates("mem", "memory"));
    }
}
