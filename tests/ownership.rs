//! Snapshot of the ownership decisions of the real 12.9 headers (`passes::ownership`): each
//! resource with its handle type, creators, ender, what it borrows, its threading rule and who
//! decided; each call that looks like an ender but is excused, with the reason. Plus rules every
//! decision must keep, and a check that the generated safe layer prints exactly the IR's types.
//! Headers come from `CUDAGEN_HEADERS_DIR` or the xtask cache `.cache/headers/12.9`.

use cudagen_generator::ir::{EndArg, FnOwnership, Library, Resource, Type};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The IR of the real 12.9 headers (built once for all tests), or `None` (skipped) outside CI
/// when they are not fetched.
use cudagen_tests::{by, real_api_12_9 as api_12_9};

fn handle(r: &Resource) -> String {
    match &r.handle {
        Type::Named { name } => name.clone(),
        other => other.c_decl(""),
    }
}

fn resource_lines(r: &Resource) -> String {
    let threads = match (r.send, r.sync) {
        (true, true) => "Send+Sync",
        (true, false) => "Send",
        _ => "neither",
    };
    let kind = if r.owned { "owned" } else { "borrowed" };
    let mut s = format!("{} = {} {kind} {threads} @{}\n", r.name, handle(r), by(r.decided_by));
    for c in &r.creators {
        let place = if c.on.is_empty() { format!("{}::{}", r.name, c.name) } else { format!("{}.{}", c.on.join("|"), c.name) };
        let parent = c.parent_param.as_ref().map(|p| format!(" parent={p}")).unwrap_or_default();
        let kept = if c.kept_from.is_empty() { String::new() } else { format!(" keeps={}", c.kept_from.join(",")) };
        let image = c.image_param.as_ref().map(|p| format!(" image={p}")).unwrap_or_default();
        let seeds = c.kernel_name.as_ref().map(|p| format!(" seeds_by={p}")).unwrap_or_default();
        s.push_str(&format!(
            "  creates: {}({}){parent}{kept}{image}{seeds}@{} -> {place}\n",
            c.function,
            c.handle_param,
            by(c.decided_by)
        ));
    }
    match &r.ender {
        Some(e) => {
            let args: Vec<String> = e
                .args
                .iter()
                .map(|a| match a {
                    EndArg::Handle { param } => param.clone(),
                    EndArg::HandleRef { param } => format!("&{param}"),
                    EndArg::Kept { param } => format!("kept {param}"),
                })
                .collect();
            let when = if r.owned { "on drop" } else { "by destroy only" };
            s.push_str(&format!("  ends: {}({})@{} {when}\n", e.function, args.join(", "), by(e.decided_by)));
        }
        None => s.push_str("  ends: - (lives as long as its parent)\n"),
    }
    if !r.parents.is_empty() {
        s.push_str(&format!("  borrows: {}\n", r.parents.join(" | ")));
    }
    if r.in_context {
        s.push_str("  borrows: the current context (its constructors take it)\n");
    }
    let takes: Vec<String> = r
        .creators
        .iter()
        .map(|c| (&c.name, &c.handle_args))
        .chain(r.methods.iter().map(|m| (&m.name, &m.handle_args)))
        .filter(|(_, a)| !a.is_empty())
        .map(|(n, a)| format!("{n}({})", a.join(",")))
        .collect();
    if !takes.is_empty() {
        s.push_str(&format!("  handle args: {}\n", takes.join(" ")));
    }
    if let Some(b) = &r.binds {
        s.push_str(&format!("  binds: {} / {}\n", b.push, b.pop));
    }
    if !r.traits.is_empty() {
        s.push_str(&format!("  implements: {}\n", r.traits.join(", ")));
    }
    if r.kernel_layouts {
        s.push_str("  kernel layouts: read from a PTX image, handed to the kernels it gives out\n");
    }
    s.push_str(&format!("  threads: {}\n", r.threading));
    let methods: Vec<&str> = r.methods.iter().map(|m| m.name.as_str()).collect();
    if !methods.is_empty() {
        s.push_str(&format!("  methods: {}\n", methods.join(" ")));
    }
    s
}

#[test]
fn ownership_12_9() {
    let Some(api) = api_12_9() else { return };
    let mut table = String::new();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for lib in &api.libraries {
        table.push_str(&format!("# {}\n", lib.kind.module()));
        for r in &lib.resources {
            table.push_str(&resource_lines(r));
            *counts.entry(if r.ender.is_some() { "paired" } else { "borrowed without ender" }).or_default() += 1;
            if let Some(e) = &r.ender {
                *counts.entry(by(e.decided_by)).or_default() += 1;
            }
        }
        for x in &lib.excused {
            table.push_str(&format!("excused {}@{}: {}\n", x.function, by(x.decided_by), x.reason));
            *counts.entry("excused").or_default() += 1;
        }
    }
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{k} {v}")).collect();
    table.push_str(&format!("# {}\n", summary.join(", ")));
    insta::assert_snapshot!("ownership_12_9", table);
}

/// Kinds loaded from a module image keep the kernels' PTX layouts, and exactly the calls that
/// hand out a launchable kernel of theirs by name seed it (decided from `[trace.params]` images
/// and the calls' string inputs, checked here by name).
#[test]
fn ptx_layouts_are_kept_by_loaded_kinds_and_seed_their_kernels() {
    let Some(api) = api_12_9() else { return };
    let driver = api.libraries.iter().find(|l| l.resources.iter().any(|r| r.name == "Module")).unwrap();
    let kept: Vec<&str> = driver.resources.iter().filter(|r| r.kernel_layouts).map(|r| r.name.as_str()).collect();
    assert_eq!(kept, ["Library", "Module"]);
    let mut images = Vec::new();
    let mut seeds = Vec::new();
    for r in &driver.resources {
        for c in &r.creators {
            if let Some(p) = &c.image_param {
                images.push(format!("{}.{p}", c.function));
            }
            if let Some(p) = &c.kernel_name {
                seeds.push(format!("{}.{p} -> {}", c.function, r.name));
            }
        }
    }
    images.sort();
    assert_eq!(
        images,
        ["cuLibraryLoadData.code", "cuModuleLoadData.image", "cuModuleLoadDataEx.image", "cuModuleLoadFatBinary.fatCubin"]
    );
    assert_eq!(seeds, ["cuModuleGetFunction.name -> Function", "cuLibraryGetKernel.name -> Kernel"]);
}

/// End verbs, checked here independently of the pass's own detection.
const END_WORDS: [&str; 10] =
    ["Destroy", "Free", "Release", "Unload", "Unregister", "Close", "Unmap", "Unbind", "Detach", "Disconnect"];

#[test]
fn every_ender_is_paired_or_excused() {
    let Some(api) = api_12_9() else { return };
    let mut bad = Vec::new();
    for lib in &api.libraries {
        for f in lib.functions.iter().filter(|f| END_WORDS.iter().any(|w| f.name.contains(w))) {
            let paired = lib.resources.iter().any(|r| r.ender.as_ref().is_some_and(|e| e.function == f.name));
            let excused = lib.excused.iter().any(|x| x.function == f.name && !x.reason.trim().is_empty());
            if !paired && !excused {
                bad.push(f.name.clone());
            }
        }
    }
    assert!(bad.is_empty(), "enders neither paired nor excused: {bad:?}");
}

/// Facts every pairing keeps: an owned kind has an ender and a creator; each creator gives the
/// kind's handle (an out-value of that type, or an input it takes over) and, for a kind that
/// borrows, names the parent; a call creates or ends at most one kind; the functions' own
/// fields agree with the resources.
#[test]
fn pairings_are_consistent() {
    let Some(api) = api_12_9() else { return };
    for lib in &api.libraries {
        let mut roles: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for r in &lib.resources {
            assert!(!r.creators.is_empty(), "{} has no creator", r.name);
            assert!(!r.owned || r.ender.is_some(), "{} is owned but nothing ends it", r.name);
            for c in &r.creators {
                let f = lib.function(&c.function).unwrap();
                let p = f.param(&c.handle_param).unwrap();
                let gives = pointee_same(lib, &p.ty, &r.handle) || resolves_same(lib, &p.ty, &r.handle);
                assert!(gives, "{}.{} does not give a {}", c.function, c.handle_param, handle(r));
                assert_eq!(
                    c.parent_param.is_some(),
                    !r.parents.is_empty(),
                    "{}: parent parameter vs borrowed kind {}",
                    c.function,
                    r.name
                );
                assert_eq!(c.kept_from.len(), r.kept.len(), "{}: kept values of {}", c.function, r.name);
                roles.entry(f.name.as_str()).or_default().push(format!("creates {}", r.name));
                assert_eq!(f.ownership, Some(FnOwnership::Creates { resource: r.name.clone() }), "{}", f.name);
            }
            if let Some(e) = &r.ender {
                roles.entry(e.function.as_str()).or_default().push(format!("ends {}", r.name));
                let f = lib.function(&e.function).unwrap();
                assert_eq!(f.ownership, Some(FnOwnership::Ends { resource: r.name.clone() }));
            }
        }
        let twice: Vec<_> = roles.iter().filter(|(_, v)| v.len() > 1).collect();
        assert!(twice.is_empty(), "calls with several roles: {twice:?}");
    }
}

fn resolves_same(lib: &Library, a: &Type, b: &Type) -> bool {
    let key = |t: &Type| match lib.resolve(t) {
        cudagen_generator::ir::Resolved::OpaqueHandle(t) | cudagen_generator::ir::Resolved::ScalarHandle(t, _) => {
            Some(t.name.clone())
        }
        _ => Some(t.c_decl("")),
    };
    key(a) == key(b)
}

fn pointee_same(lib: &Library, a: &Type, b: &Type) -> bool {
    a.pointee().is_some_and(|(t, _)| resolves_same(lib, t, b))
}

/// The safe module declares exactly the IR's owned types, and each has the methods the IR lists.
#[test]
fn generated_owned_types_are_the_irs() {
    let Some(api) = api_12_9() else { return };
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    for lib in &api.libraries {
        let text =
            std::fs::read_to_string(root.join(format!("generated/rust/src/cuda12/safe/{}.rs", lib.kind.module()))).unwrap();
        let generated: BTreeSet<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("pub struct "))
            .map(|l| l.split(['<', ' ']).next().unwrap())
            .filter(|n| *n != "CurrentGuard")
            .collect();
        let ir: BTreeSet<&str> = lib.resources.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(generated, ir, "{}: owned types of generated/rust differ from the IR", lib.kind.module());
        let fns: BTreeSet<String> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("pub fn ").or_else(|| l.trim_start().strip_prefix("pub unsafe fn ")))
            .map(|l| l.split(['(', '<']).next().unwrap().to_string())
            .collect();
        for r in &lib.resources {
            for m in &r.methods {
                assert!(fns.contains(&m.name), "{}.{} ({}) is not generated", r.name, m.name, m.function);
            }
        }
    }
}

/// The signature starting at `first`, taking the lines rustfmt split it over from `rest` (up to
/// the one that opens the body or ends the item), on one line as written before formatting:
/// `f(a, b) -> R {`.
fn one_line<'a>(first: &'a str, rest: &mut impl Iterator<Item = &'a str>) -> String {
    let ends = |s: &str| s.ends_with('{') || s.ends_with('}') || s.ends_with(';');
    let mut sig = first.to_string();
    while !ends(&sig) {
        let Some(part) = rest.next().map(str::trim) else { break };
        if part.starts_with(')') || part.starts_with('>') || part.starts_with('{') {
            sig = sig.trim_end_matches(',').to_string();
            sig.push_str(if part.starts_with('{') { " " } else { "" });
        } else if !sig.ends_with('(') && !sig.ends_with('<') {
            sig.push(' ');
        }
        sig.push_str(part);
    }
    sig
}

/// The safe API surface as generated (12.9): every owned type, trait impl and signature, so a
/// change of lifetimes, `Send`/`Sync`, `unsafe` or argument types shows in review.
#[test]
fn safe_api_12_9() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut surface = String::new();
    for module in ["driver", "nvrtc", "nvjitlink", "nvvm", "runtime"] {
        let text = std::fs::read_to_string(root.join(format!("generated/rust/src/cuda12/safe/{module}.rs"))).unwrap();
        surface.push_str(&format!("# {module}\n"));
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let t = line.trim_start();
            let item = ["pub struct ", "impl", "unsafe impl"].iter().any(|p| line.starts_with(p));
            let function = ["pub fn ", "pub unsafe fn "].iter().any(|p| t.starts_with(p));
            if item || function {
                let sig = one_line(t, &mut lines);
                surface.push_str(if function { "    " } else { "" });
                surface.push_str(sig.trim_end_matches(['{', ' ']).trim_end_matches(" {}"));
                surface.push('\n');
            }
        }
    }
    assert!(surface.contains("pub struct Stream<'p>"), "streams borrow their context");
    insta::assert_snapshot!("safe_api_12_9", surface);
}
