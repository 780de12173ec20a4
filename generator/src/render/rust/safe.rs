//! The safe layer's owned types (`cudagen::safe`): one per [`crate::ir::Resource`], printed from
//! what `passes::ownership` decided. This module only turns those decisions into Rust spellings
//! (types, argument lists, the calls into the typed layer); it decides nothing.

use super::functions::{self, TKind, TypedFn};
use super::types::Ctx;
use crate::ir::{Creator, EndArg, Function, Library, Resource, Type};
use serde::Serialize;
use std::collections::BTreeSet;

#[derive(Serialize, Clone)]
pub(super) struct RootModule {
    pub module: String,
    /// `Driver` / `Nvrtc`: the variant of `safe::LibraryError`.
    pub kind: String,
}

/// `src/safe/<module>.rs`.
#[derive(Serialize)]
pub(super) struct ModuleView {
    pub module: String,
    pub kind: String,
    pub resources: Vec<ResourceView>,
    /// Some owned type has a scoped `bind` (the module defines the `CurrentGuard`).
    pub binds: bool,
    /// The call the guard undoes a bind with.
    pub guard_pop: String,
    /// Rust types of the handles owned types hold (addresses aside): each raw handle is
    /// `AsRaw` of itself, so a method taking `&impl AsRaw<H>` takes an owned type or a raw one.
    pub raw_handles: Vec<String>,
}

#[derive(Serialize)]
pub(super) struct ResourceView {
    pub name: String,
    /// `<'p>` for a kind that borrows its parent, else empty.
    pub generics: String,
    /// The handle's Rust type (`CUstream`, `*mut c_void`).
    pub handle_ty: String,
    /// The handle is an address (`Resource::address`): the type is not `AsRaw` of it.
    pub address: bool,
    /// Kept values: `(field, Rust type)`.
    pub fields: Vec<FieldView>,
    /// The marker type of `_marker` (lifetime and/or not-`Sync`), if any.
    pub marker: Option<String>,
    /// What `into_raw` returns / `from_raw` takes: the handle, or a tuple with the kept values.
    pub raw_ty: String,
    pub doc: Vec<String>,
    pub threading: String,
    pub send: bool,
    pub sync: bool,
    pub owned: bool,
    pub ender: Option<EndView>,
    pub bind: Option<BindView>,
    pub constructors: Vec<CallView>,
    pub methods: Vec<CallView>,
    /// Implements `AsStream` (the safe layer enqueues work on it).
    pub as_stream: bool,
    /// Implements `CurrentContext` (constructors of kinds made in a context take it).
    pub current_context: bool,
    /// Made in the current context: the constructors take it and the type borrows it.
    pub in_context: bool,
    /// Implements `Launchable`: the function handle and the library kernel expressions.
    pub launch: Option<LaunchView>,
    /// Keeps the kernel layouts of its PTX image (`Resource::kernel_layouts`): a `layouts` field.
    pub kernel_layouts: bool,
}

#[derive(Serialize)]
pub(super) struct LaunchView {
    pub function: String,
    pub kernel: String,
    /// The function and kernel handle types (`ownership.launch` of library.toml).
    pub function_ty: String,
    pub kernel_ty: String,
}

#[derive(Serialize)]
pub(super) struct FieldView {
    pub name: String,
    pub ty: String,
}

#[derive(Serialize)]
pub(super) struct EndView {
    pub c_name: String,
    /// Path of the typed fn (`lib::stream_destroy`).
    pub typed: String,
    /// Statements before the call (a local copy of the handle for a by-pointer ender).
    pub prelude: Vec<String>,
    /// The call, an expression of `Result<(), Error>` on `self`.
    pub call: String,
    pub is_unsafe: bool,
}

#[derive(Serialize)]
pub(super) struct BindView {
    pub push: String,
    pub pop: String,
    pub push_c: String,
    pub pop_c: String,
}

/// A constructor or method: signature and body lines.
#[derive(Serialize)]
pub(super) struct CallView {
    pub name: String,
    pub c_name: String,
    /// Path of the typed fn it wraps (`super::super::driver::stream_create` spelled `lib::...`).
    pub typed: String,
    pub is_unsafe: bool,
    /// The `# Safety` lines of the typed fn, when `is_unsafe`.
    pub safety: Vec<String>,
    pub generics: String,
    /// Takes `&self`.
    pub receiver: bool,
    pub sig: Vec<String>,
    pub ret_ty: String,
    pub body: Vec<String>,
    /// The owned type it returns, for its doc line.
    pub returns: Option<String>,
}

/// The safe view of one library, or `None` when it has no typed layer (no status enum).
pub(super) fn module(ctx: &Ctx, lib: &Library, status: Option<&str>, emitted: &BTreeSet<String>) -> Option<ModuleView> {
    status?;
    let typed = |name: &str| -> Option<(TypedFn, &Function)> {
        let f = lib.function(name)?;
        emitted.contains(&f.names.rust).then(|| (functions::typed(ctx, f).0, f))
    };
    let resources: Vec<ResourceView> = lib.resources.iter().map(|r| resource(ctx, lib, r, &typed)).collect();
    // A handle another library owns (`cudaStream_t` is the driver's `CUstream`) is `AsRaw` of
    // itself there already.
    let shared = |r: &Resource| matches!(&r.handle, Type::Named { name } if lib.shared_handle(name).is_some());
    let raw_handles: BTreeSet<String> = lib
        .resources
        .iter()
        .zip(&resources)
        .filter(|(r, _)| !shared(r) && !r.address)
        .map(|(_, v)| v.handle_ty.clone())
        .collect();
    Some(ModuleView {
        raw_handles: raw_handles.into_iter().collect(),
        module: lib.profile().module.to_string(),
        kind: lib.profile().variant.to_string(),
        binds: resources.iter().any(|r| r.bind.is_some()),
        guard_pop: resources.iter().find_map(|r| r.bind.as_ref().map(|b| b.pop.clone())).unwrap_or_default(),
        resources,
    })
}

type Lookup<'a, 'b> = dyn Fn(&str) -> Option<(TypedFn, &'a Function)> + 'b;

/// The owned type has a lifetime: it borrows a parent or the context it was made in.
fn borrows(r: &Resource) -> bool {
    !r.parents.is_empty() || r.in_context
}

fn resource<'a>(ctx: &Ctx, lib: &'a Library, r: &Resource, typed: &Lookup<'a, '_>) -> ResourceView {
    let borrowed = borrows(r);
    let ender_fn = r.ender.as_ref().and_then(|e| lib.function(&e.function));
    let fields: Vec<FieldView> = r
        .kept
        .iter()
        .filter_map(|k| ender_fn.and_then(|f| f.param(k)))
        .map(|p| FieldView { name: p.names.rust.clone(), ty: ctx.rust(&p.ty) })
        .collect();
    let handle_ty = ctx.rust(&r.handle);
    let raw_ty = if fields.is_empty() {
        handle_ty.clone()
    } else {
        format!("({handle_ty}, {})", fields.iter().map(|f| f.ty.as_str()).collect::<Vec<_>>().join(", "))
    };
    let marker = match (borrowed, r.sync) {
        (true, true) => Some("&'p ()".to_string()),
        (true, false) => Some("(&'p (), core::cell::Cell<()>)".to_string()),
        (false, false) => Some("core::cell::Cell<()>".to_string()),
        (false, true) => None,
    };
    let mut constructors = Vec::new();
    let mut methods = Vec::new();
    // Creators that are methods of this kind live on it; the others are constructors of their kind.
    for other in &lib.resources {
        for c in &other.creators {
            let here = if c.on.is_empty() { other.name == r.name } else { c.on.contains(&r.name) };
            if !here {
                continue;
            }
            if let Some((t, f)) = typed(&c.function) {
                let v = creator(f, &t, c, other, lib, ctx);
                if c.on.is_empty() {
                    constructors.push(v)
                } else {
                    methods.push(v)
                }
            }
        }
    }
    for m in &r.methods {
        if let Some((t, f)) = typed(&m.function) {
            let self_name = f.param(&m.self_param).map(|p| p.names.rust.clone()).unwrap_or_default();
            let handles = handle_params(ctx, f, &m.handle_args);
            let (sig, args) = split_sig(&t, &handles, |n| (n == self_name).then(|| "self.raw".to_string()));
            methods.push(CallView {
                name: m.name.clone(),
                c_name: f.name.clone(),
                typed: format!("lib::{}", t.name),
                is_unsafe: t.is_unsafe,
                safety: functions::safety(f),
                generics: t.generics.clone(),
                receiver: true,
                sig,
                ret_ty: t.ret_ty.clone(),
                body: vec![wrap_unsafe(&format!("lib::{}({})", t.name, args.join(", ")), t.is_unsafe)],
                returns: None,
            });
        }
    }
    ResourceView {
        name: r.name.clone(),
        generics: if borrowed { "<'p>".into() } else { String::new() },
        handle_ty,
        address: r.address,
        fields,
        marker,
        raw_ty,
        doc: doc_lines(lib, r),
        threading: r.threading.clone(),
        send: r.send,
        sync: r.sync,
        owned: r.owned,
        ender: r.ender.as_ref().and_then(|e| typed(&e.function).map(|(t, f)| end_view(f, &t, &e.args))),
        bind: r.binds.as_ref().and_then(|b| {
            let push = lib.function(&b.push)?;
            let pop = lib.function(&b.pop)?;
            Some(BindView {
                push: format!("lib::{}", push.names.rust),
                pop: format!("lib::{}", pop.names.rust),
                push_c: b.push.clone(),
                pop_c: b.pop.clone(),
            })
        }),
        constructors,
        methods,
        as_stream: r.traits.iter().any(|t| t == "as_stream"),
        current_context: r.traits.iter().any(|t| t == "current_context"),
        in_context: r.in_context,
        launch: lib.profile().ownership.launch.as_ref().and_then(|l| {
            let view = |function: String, kernel: &str| LaunchView {
                function,
                kernel: kernel.into(),
                function_ty: l.function.clone(),
                kernel_ty: l.kernel.clone(),
            };
            r.traits.iter().find_map(|t| match t.as_str() {
                "launchable_function" => Some(view("self.raw".into(), "None")),
                "launchable_kernel" => Some(view(format!("{}(self.raw.0)", l.function), "Some(self.raw)")),
                _ => None,
            })
        }),
        kernel_layouts: r.kernel_layouts,
    }
}

/// `(Rust name, Rust type)` of the parameters that hold another resource's handle.
fn handle_params(ctx: &Ctx, f: &Function, names: &[String]) -> Vec<(String, String)> {
    names.iter().filter_map(|n| f.param(n)).map(|p| (p.names.rust.clone(), ctx.rust(&p.ty))).collect()
}

/// The typed fn's signature without the parameters `replace` stands in for, and its call
/// arguments in order (the replaced ones spelled as `replace` says). A parameter of `handles`
/// takes `&impl AsRaw<Handle>`: an owned type or the raw handle.
fn split_sig(t: &TypedFn, handles: &[(String, String)], replace: impl Fn(&str) -> Option<String>) -> (Vec<String>, Vec<String>) {
    let mut sig = Vec::new();
    let mut args = Vec::new();
    for p in &t.params {
        let Some(ty) = &p.sig_ty else { continue };
        let handle = handles.iter().find(|(n, h)| *n == p.name && h == ty);
        match replace(&p.name) {
            Some(arg) => args.push(arg),
            None if handle.is_some() => {
                sig.push(format!("{}: &impl super::AsRaw<{ty}>", p.name));
                args.push(format!("super::lend({})", p.name));
            }
            None => {
                sig.push(format!("{}: {ty}", p.name));
                args.push(p.name.clone());
            }
        }
    }
    (sig, args)
}

fn wrap_unsafe(call: &str, is_unsafe: bool) -> String {
    if is_unsafe {
        format!("unsafe {{ {call} }}")
    } else {
        call.to_string()
    }
}

/// A creator as a constructor of `made` (or a method of the kind it is `on`): calls the typed
/// fn, then wraps the new handle and the kept values with `from_raw`.
fn creator(f: &Function, t: &TypedFn, c: &Creator, made: &Resource, lib: &Library, ctx: &Ctx) -> CallView {
    let rust_of = |c_name: &str| f.param(c_name).map(|p| p.names.rust.clone()).unwrap_or_default();
    let self_name = c.self_param.as_deref().map(rust_of);
    let handles = handle_params(ctx, f, &c.handle_args);
    let (mut sig, args) = split_sig(t, &handles, |n| (Some(n) == self_name.as_deref()).then(|| "self.raw".to_string()));
    // A constructor of a kind made in the current context takes that context (and checks it is
    // the calling thread's current one): the new object borrows it.
    let in_context = c.on.is_empty() && made.in_context;
    if in_context {
        sig.insert(0, "context: &'p (impl super::CurrentContext + ?Sized)".to_string());
    }
    let arg_of = |c_name: &str| {
        let n = rust_of(c_name);
        if Some(&n) == self_name.as_ref() {
            "self.raw".to_string()
        } else {
            n
        }
    };
    let handle_rust = rust_of(&c.handle_param);
    let kept: Vec<String> = c.kept_from.iter().map(|k| arg_of(k)).collect();
    let out_types = functions::output_types(ctx, f, &t.params, t.returns);
    // Which output is the new handle (none when the call takes it over from an argument).
    let mut index = usize::from(t.returns == functions::Returns::Value);
    let mut handle_at = None;
    for p in &t.params {
        if matches!(p.kind, TKind::OutValue | TKind::SelectedOut | TKind::CstrOut | TKind::OutBuffer) {
            if p.name == handle_rust {
                handle_at = Some(index);
            }
            index += 1;
        }
    }
    let borrowed = borrows(made);
    let made_ty = if c.on.is_empty() {
        "Self".to_string()
    } else if borrowed {
        format!("{}<'_>", made.name)
    } else {
        made.name.clone()
    };
    let ctor = |raw: String| {
        let all: Vec<String> = std::iter::once(raw).chain(kept.iter().cloned()).collect();
        let raw = if all.len() == 1 { all[0].clone() } else { format!("({})", all.join(", ")) };
        let path = if c.on.is_empty() { "Self".to_string() } else { made.name.clone() };
        let made = format!("{path}::from_raw({raw})");
        let made = match &c.kernel_name {
            Some(n) => format!("unsafe {{ self.layouts.seed({}, {made}) }}", rust_of(n)),
            None => format!("unsafe {{ {made} }}"),
        };
        match &c.image_param {
            Some(p) => format!("{made}.with_layouts(unsafe {{ super::KernelLayouts::from_image({}) }})", rust_of(p)),
            None => made,
        }
    };
    let outs: Vec<String> = (0..out_types.len()).map(|i| format!("__o{i}")).collect();
    let pattern = match outs.len() {
        0 => "()".to_string(),
        1 => outs[0].clone(),
        _ => format!("({})", outs.join(", ")),
    };
    let (mut values, mut types): (Vec<String>, Vec<String>) = (outs.clone(), out_types.clone());
    match handle_at {
        Some(i) => {
            values[i] = ctor(outs[i].clone());
            types[i] = made_ty.clone();
        }
        None => {
            values.insert(0, ctor(arg_of(&c.handle_param)));
            types.insert(0, made_ty.clone());
        }
    }
    let tuple = |v: &[String]| if v.len() == 1 { v[0].clone() } else { format!("({})", v.join(", ")) };
    let call = wrap_unsafe(&format!("lib::{}({})", t.name, args.join(", ")), t.is_unsafe);
    let _ = lib;
    CallView {
        name: c.name.clone(),
        c_name: f.name.clone(),
        typed: format!("lib::{}", t.name),
        is_unsafe: t.is_unsafe,
        safety: functions::safety(f),
        generics: t.generics.clone(),
        receiver: !c.on.is_empty(),
        sig,
        ret_ty: format!("Result<{}, {}>", tuple(&types), if in_context { "super::Error" } else { "Error" }),
        body: [in_context.then(|| "super::check_current(context)?;".to_string())]
            .into_iter()
            .flatten()
            .chain([
                if outs.is_empty() { format!("{call}?;") } else { format!("let {pattern} = {call}?;") },
                format!("// SAFETY: the handle was just made by `{}` and is owned by nobody else{}.", f.name, seed_safety(c)),
                format!("Ok({})", tuple(&values)),
            ])
            .collect(),
        returns: Some(made.name.clone()),
    }
}

/// The rest of a creator's SAFETY line when it reads kernel layouts or seeds a kernel's cache.
fn seed_safety(c: &Creator) -> &'static str {
    match (&c.image_param, &c.kernel_name) {
        (Some(_), _) => "; the driver accepted the image as a module image, so it may be read again",
        (None, Some(_)) => "; the layouts are this module's, the kernel is the one its name names",
        (None, None) => "",
    }
}

/// The ender's call on `self`: the handle, a pointer to a copy of it, or kept fields.
fn end_view(f: &Function, t: &TypedFn, args: &[EndArg]) -> EndView {
    let mut prelude = Vec::new();
    let by_name = |c_name: &str| f.param(c_name).map(|p| p.names.rust.clone()).unwrap_or_default();
    let mut call_args = Vec::new();
    for a in args {
        call_args.push(match a {
            EndArg::Handle { .. } => "self.raw".to_string(),
            EndArg::HandleRef { .. } => {
                prelude.push("let mut __handle = self.raw;".to_string());
                "&mut __handle".to_string()
            }
            EndArg::Kept { param } => format!("self.{}", by_name(param)),
        });
    }
    EndView {
        c_name: f.name.clone(),
        typed: format!("lib::{}", t.name),
        prelude,
        call: wrap_unsafe(&format!("lib::{}({})", t.name, call_args.join(", ")), t.is_unsafe),
        is_unsafe: t.is_unsafe,
    }
}

/// The owned type's doc: what creates it, what ends it, what it borrows.
fn doc_lines(lib: &Library, r: &Resource) -> Vec<String> {
    let link = |name: &str| {
        lib.function(name).map(|f| format!("[`{name}`](lib::{})", f.names.rust)).unwrap_or_else(|| format!("`{name}`"))
    };
    let handle = ctx_spelling(r);
    let mut out = vec![match &r.ender {
        Some(e) if r.owned => format!("An owned `{handle}`: dropping it calls {} (an error there is kept for [`take_drop_errors`](super::take_drop_errors)).", link(&e.function)),
        Some(e) => format!("A `{handle}` its parent owns: it ends with the parent, or early by [`destroy`](Self::destroy) ({}).", link(&e.function)),
        None => format!("A `{handle}` that lives as long as its parent; nothing ends it on its own."),
    }];
    let creators: Vec<String> = r.creators.iter().map(|c| link(&c.function)).collect();
    if !creators.is_empty() {
        out.push(String::new());
        out.push(format!("Made by {}.", creators.join(", ")));
    }
    if !r.parents.is_empty() {
        out.push(format!(
            "Borrows its {} (it must not outlive it).",
            r.parents.iter().map(|p| format!("[`{p}`]")).collect::<Vec<_>>().join(" or ")
        ));
    }
    if r.in_context {
        out.push(
            "Made in the calling thread's current context, which its constructors take (checked current): it borrows that \
             context and cannot outlive it."
                .to_string(),
        );
    }
    out
}

fn ctx_spelling(r: &Resource) -> String {
    match &r.handle {
        crate::ir::Type::Named { name } => name.clone(),
        _ => "void *".into(),
    }
}

/// Stems of the support files beside `safe/mod.rs`, sorted.
pub(super) fn support_stems<'a>(files: impl Iterator<Item = (&'a str, &'a str)>) -> Vec<String> {
    let mut stems: Vec<String> = files
        .filter_map(|(rel, _)| rel.strip_suffix(".rs"))
        .filter(|s| !s.contains('/') && *s != "mod")
        .map(String::from)
        .collect();
    stems.sort();
    stems
}
